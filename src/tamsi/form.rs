//! What the Newton iteration needs from the problem's data form (`docs/tamsi.md` §7.1,
//! `docs/block_sparse.md` §4): the products with M and J, and one Newton step. The iteration in
//! `solver.rs` is written once over [`Form`]; [`DenseForm`] (dense M, Jn, Jt, Drake's arithmetic)
//! and [`BlockForm`] (trees and islands) implement it.

use nalgebra::{DMatrixView, DMatrixViewMut};

use super::TamsiError;
use super::contact_blocks::{BLOCK, ContactBlocks};
use super::friction::ContactFriction;
use super::newton_matrix::{NewtonMatrix, UpdateCoefficients};
use crate::block_sparse::{
    BlockNewtonMatrix, BlockSparseError, BlockSparseSystem, Factorization, IslandCost, WorkSplit, try_grow,
};
use crate::linalg::scalar::cxx_min;
use crate::linalg::simd::{Simd, dispatch_fn};
use crate::linalg::{Ldlt, PaddedMatrix, PartialPivLu, padded_dim};
use crate::parallel::{Claims, Owned, Parts, WorkerPool, chunk_count};

/// The per-contact state [`Form::evaluate_contacts`] writes (nc entries each; `vt` 2nc).
pub(super) struct ContactOutputs<'c> {
    pub vt: &'c mut [f64],
    pub vn: &'c mut [f64],
    pub fn_: &'c mut [f64],
    /// `dfn/dvn`.
    pub g: &'c mut [f64],
    pub friction: &'c mut [ContactFriction],
}

/// One contact's normal force, its derivative and friction from `(i, [vt0, vt1], vn)`. Taken as
/// a generic, not `dyn`: called from the pool's closures, a `dyn` call cannot be inlined into
/// their SIMD dispatch, and its body compiled for the baseline calls libm's `fma`
/// (`tests/alloc/hot_path_fma.rs`).
pub(super) trait PerContact: Fn(usize, [f64; 2], f64) -> (f64, f64, ContactFriction) + Sync {}

impl<T: Fn(usize, [f64; 2], f64) -> (f64, f64, ContactFriction) + Sync> PerContact for T {}

/// The limiter's step factor of one contact from its `vt` and `dvt` (`super::calc_alpha` with the
/// solve's parameters), inlined where it is called.
pub(super) trait StepLimiter: Fn([f64; 2], [f64; 2]) -> Option<f64> + Sync {}

impl<T: Fn([f64; 2], [f64; 2]) -> Option<f64> + Sync> StepLimiter for T {}

/// What [`Form::fused_iteration`] writes in contact order: `vt`, `dvt` (2 per contact), `dvn`;
/// and the limiter's α over all contacts: `cxx_min` from 1 of every contact's factor (the order
/// does not change a minimum that skips NaN: `docs/performance.md` §8), `None` when some
/// contact's factor failed.
pub(super) struct FusedOutputs<'a> {
    pub vt: &'a mut [f64],
    pub dvt: &'a mut [f64],
    pub dvn: &'a mut [f64],
    pub alpha: &'a mut Option<f64>,
}

/// Fewest contacts per thread for which the per-contact and per-tree phases run on the pool
/// (below it the hand-off costs more than the work: measured, `docs/performance.md` §8).
const MIN_CONTACTS_PER_THREAD: usize = 128;

/// Least gain, over one thread, that the islands' work must be able to reach on the pool for a
/// solve to use it: `min(threads, 1 / share)` with `share` the largest island's share of the
/// islands' cost (`BlockNewtonMatrix::largest_island_share`, [`IslandCost::TAMSI_FUSED`]); below
/// it the solve runs on the caller's thread alone, as with one thread. One island takes its
/// whole time on one thread: 2 threads were 0.83–0.99× of one on pile200 t3.0 (one island; only
/// the contact and tree phases on the pool) and pile100 t3.0 (3 islands, the largest 576 of
/// 600 dofs) in every quiet run (`docs/performance.md` §3 sixth window, §8), where the bound
/// is about 1.0×.
const MIN_ISLAND_GAIN: f64 = 1.3;

/// Fewest trees without contact per thread for which their solve at the start ([`Form::start`])
/// runs on the pool: each is a factorization of its M block (pile50 t0.3: 23 free boxes, 91 k
/// instructions on the caller, 2.7 % of the solve; one hand-off costs about 3 k,
/// `docs/performance.md` §8).
const MIN_FREE_TREES_PER_THREAD: usize = 4;

/// Chunks of islands per thread in the fused iteration's phase ([`Form::fused_iteration`]). The
/// chunks go to whichever thread is free (`crate::parallel::WorkerPool::run`), so finer chunks
/// even out what the cost weights of the cuts misjudge: with 2 per thread pile50 t0.3's last
/// chunk (its 24-dof island and five small ones) took 31 % of the phase's instructions and the
/// 2-thread phase 8 % longer than half (callgrind, `docs/performance.md` §8, "The 2-thread
/// critical path").
const FUSED_CHUNKS_PER_THREAD: usize = 4;

/// The chunks of the fused iteration's phase on `threads` threads with `islands` islands: at most
/// one island per chunk, at least 2 (`BlockNewtonMatrix::runs_parallel`).
fn fused_chunk_count(threads: usize, islands: usize) -> usize {
    (FUSED_CHUNKS_PER_THREAD * threads).min(islands).clamp(2, crate::parallel::MAX_THREADS)
}

/// Fewest velocities from which dense two-way problems use fused multiply-adds in the products
/// and the Newton-matrix assembly (`docs/tamsi.md` §5.2, `docs/performance.md` §1): half the
/// floating-point operations of the assembly, round-off-level differences from Drake, the same
/// iterations. Below it the solve is mostly fixed per-iteration work (fusing gains 3 % of the
/// instructions at nv = 6) and keeps Drake's bits, which Drake's own test cases (nv ≤ 6) then
/// reproduce exactly.
const FUSED_MIN_DIM: usize = 12;

/// Largest `nv` whose dense `Jtᵀ ft`, `Jnᵀ fn` run over a transposed copy of the rows with every
/// sum in registers (`PaddedMatrix::add_triples`: up to 8 vectors, nv ≤ 32) instead of the
/// contacts' nonzero blocks (`ContactBlocks::add_transposed`): the same operations on every entry
/// plus exact zeros, so the same bits; at these sizes the per-block bookkeeping costs more than
/// the zero blocks it skips (`docs/performance.md` §1, third pass).
const DENSE_FORCES_MAX_DIM: usize = 32;

/// The data-form-dependent operations of one TAMSI solve. Vectors are in the dense layout of the
/// problem: `v` and generalized forces nv, `vt` 2nc (two per contact), `vn` nc. `Sync`: the block
/// form's parallel phases share it with the worker threads.
pub(super) trait Form: Sync {
    /// Per-solve setup for `nc` contacts and time step `dt`; grows the form's workspace
    /// fallibly (an allocation failure is an error, not an abort).
    fn prepare(&mut self, nc: usize, dt: f64, two_way: bool) -> Result<(), TamsiError>;

    /// `vt = Jt v`, `vn = Jn v`.
    fn contact_velocities<S: Simd>(&self, simd: S, v: &[f64], vt: &mut [f64], vn: &mut [f64]);

    /// `vt`, `vn` of the contacts `range` alone (`vt`, `vn`: the range's entries). The dense form
    /// computes every contact at once and is only called with the whole range.
    #[inline(always)]
    fn contact_velocities_of<S: Simd>(
        &self,
        simd: S,
        v: &[f64],
        _range: std::ops::Range<usize>,
        vt: &mut [f64],
        vn: &mut [f64],
    ) {
        self.contact_velocities(simd, v, vt, vn);
    }

    /// `out = M v`.
    fn mul_mass<S: Simd>(&self, simd: S, v: &[f64], out: &mut [f64]);

    /// `tau_t = Jtᵀ ft` and `tau_n = Jnᵀ fn` with `(ft0, ft1, fn) = forces(i)`; both have at least
    /// [`Form::force_len`] entries.
    fn generalized_forces<S: Simd>(
        &self,
        simd: S,
        tau_n: &mut [f64],
        tau_t: &mut [f64],
        forces: impl Fn(usize) -> (f64, f64, f64),
    );

    /// Length of the scratch vectors of [`Form::generalized_forces`] for `nv` velocities.
    fn force_len(nv: usize) -> usize;

    /// Every contact's velocities at `v` and then `per_contact` of them (§7.1 steps 1.1–1.3) into
    /// `out` (its first `nc` contacts).
    #[inline(always)]
    fn evaluate_contacts<S: Simd>(
        &self,
        simd: S,
        v: &[f64],
        nc: usize,
        out: ContactOutputs<'_>,
        per_contact: &impl PerContact,
    ) {
        evaluate_in_order(self, simd, v, 0..nc, out, per_contact);
    }

    /// `rhs = −R` with `R = M v − p* − dt·Jnᵀ fn − dt·Jtᵀ ft` (§4), evaluated left to right as
    /// Drake's Eigen expression is; `forces(i) = (ft0, ft1, fn)`; `tau_n`, `tau_t`: scratch of
    /// [`Form::force_len`].
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn negative_residual<S: Simd>(
        &self,
        simd: S,
        v: &[f64],
        p_star: &[f64],
        dt: f64,
        rhs: &mut [f64],
        tau_n: &mut [f64],
        tau_t: &mut [f64],
        forces: impl Fn(usize) -> (f64, f64, f64) + Sync,
    ) {
        if let Some((triples, m, fused)) = self.one_pass_residual() {
            let rhs = &mut rhs[..v.len()];
            if fused {
                triples.residual::<S, true>(simd, m, v, p_star, dt, rhs, forces);
            } else {
                triples.residual::<S, false>(simd, m, v, p_star, dt, rhs, forces);
            }
            return;
        }
        self.generalized_forces(simd, tau_n, tau_t, forces);
        combine_residual(self, simd, v, p_star, dt, rhs, tau_n, tau_t);
    }

    /// The dense form up to [`DENSE_FORCES_MAX_DIM`] velocities: the transposed copy of the
    /// contacts' rows (see [`Form::generalized_forces`]), the padded copy of M and whether the
    /// products fuse, with which [`Form::negative_residual`] computes `M v`, `Jnᵀ fn`, `Jtᵀ ft`
    /// and their combination in one pass, the sums in registers ([`PaddedMatrix::residual`]:
    /// the same bits as the products stored and combined, `docs/performance.md` §1, fifth pass).
    /// `None` (every other form and size): the products one by one.
    #[inline(always)]
    fn one_pass_residual(&self) -> Option<(&PaddedMatrix, &PaddedMatrix, bool)> {
        None
    }

    /// One Newton iteration's work at `v` in one pool phase by islands, when this solve has it
    /// (block data on a pool, two islands or more; `docs/performance.md` §8): every contact
    /// evaluated at `v` (as [`Form::evaluate_contacts`] with `per_contact`), `rhs = −R(v)` (as
    /// [`Form::negative_residual`]), the Newton step `rhs = Δv` (as [`Form::newton_step`]) and
    /// `dvt = Jt Δv`, `dvn = Jn Δv` and each contact's limiter factor (`limiter`, the per-contact
    /// part of Drake's α) with their minimum, every number with the operations of those steps.
    /// Of the contact state only `vt`, `dvt`, `dvn` and α are written (`out`, in contact order,
    /// by the chunks themselves); `vn`, the forces and friction are left stale (evaluate again
    /// before reading them). Returns `None` when the solve takes the steps one by one, else
    /// whether the factorization succeeded (after a failure `out` but `vt` is stale).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn fused_iteration<S: Simd>(
        &mut self,
        _simd: S,
        _v: &[f64],
        _p_star: &[f64],
        _two_way: bool,
        _per_contact: &impl PerContact,
        _limiter: &impl StepLimiter,
        _rhs: &mut [f64],
        _out: FusedOutputs<'_>,
    ) -> Option<bool> {
        None
    }

    /// Called once per solve before the first iteration, with `v` the guess: a form that solves
    /// part of the problem directly (the block form's trees without contact, `M_t v_t = p*_t`)
    /// writes it into `v`. Returns `false` when that solve failed.
    fn start(&mut self, p_star: &[f64], v: &mut [f64]) -> bool;

    /// The Newton step: assembles `J = M + dt·Σᵢ Aᵢ Cᵢ Aᵢᵀ` with `coefficients(i)` (§4), factors
    /// it (LU two-way, LDLᵀ one-way) and solves `J Δv = rhs` in place. Returns `false` when the
    /// one-way LDLᵀ failed (after solving, as Drake does).
    fn newton_step<S: Simd>(
        &mut self,
        simd: S,
        two_way: bool,
        coefficients: impl Fn(usize) -> UpdateCoefficients + Sync,
        rhs: &mut [f64],
        tmp: &mut [f64],
    ) -> bool;

    /// Writes the Newton matrix `J` (§4) into `out` (nv×nv) without factoring it.
    fn write_newton_matrix<S: Simd>(
        &mut self,
        simd: S,
        two_way: bool,
        coefficients: impl Fn(usize) -> UpdateCoefficients,
        out: &mut DMatrixViewMut<'_, f64>,
    ) -> Result<(), BlockSparseError>;

    /// The no-contact solve `M v = p*` (§7.2) into `v`; `false` when M could not be factored.
    fn solve_without_contact(&mut self, p_star: &[f64], v: &mut [f64]) -> bool;

    // ---- Sensitivities (`docs/tamsi_sensitivities.md`): one factorization of J at the
    // ---- solution, then solves with J and Jᵀ on every dof.

    /// What the products need of [`Form::prepare`] (dense: the blocked Jacobian rows), for
    /// evaluations that reuse a factorization made after a full `prepare` of the same problem.
    fn prepare_products(&mut self) -> Result<(), TamsiError>;

    /// Assembles `J` (§4) with `coefficients(i)` and factors it (LU two-way, LDLᵀ one-way)
    /// without solving. Returns `false` when the one-way LDLᵀ failed.
    fn factor_newton_matrix<S: Simd>(
        &mut self,
        simd: S,
        two_way: bool,
        coefficients: impl Fn(usize) -> UpdateCoefficients,
    ) -> bool;

    /// `J x = b` in place with the factors of the last [`Form::factor_newton_matrix`], on every
    /// dof (the block form's free trees have `J_t = M_t`). `b` has nv entries, `tmp` at least nv.
    fn solve_factored(&mut self, two_way: bool, b: &mut [f64], tmp: &mut [f64]);

    /// `Jᵀ x = b` likewise.
    fn solve_factored_transposed(&mut self, two_way: bool, b: &mut [f64], tmp: &mut [f64]);

    /// `out += J_iᵀ f` for contact i alone, with `f = (ft0, ft1, fn)` (N) as in
    /// [`Form::generalized_forces`]; `out` has at least [`Form::force_len`] entries.
    fn add_contact_force(&self, i: usize, f: (f64, f64, f64), out: &mut [f64]);
}

/// [`Form::evaluate_contacts`] for the contacts `range` on this thread: their velocities, then
/// `per_contact` of each in increasing order. `out` holds the range's entries only.
#[inline(always)]
fn evaluate_in_order<S: Simd, F: Form + ?Sized>(
    form: &F,
    simd: S,
    v: &[f64],
    range: std::ops::Range<usize>,
    out: ContactOutputs<'_>,
    per_contact: &impl PerContact,
) {
    let ContactOutputs { vt, vn, fn_, g, friction } = out;
    let n = range.len();
    form.contact_velocities_of(simd, v, range.clone(), &mut vt[..2 * n], &mut vn[..n]);
    for (j, i) in range.enumerate() {
        let (f, gi, fr) = per_contact(i, [vt[2 * j], vt[2 * j + 1]], vn[j]);
        fn_[j] = f;
        g[j] = gi;
        friction[j] = fr;
    }
}

/// `rhs = −(((M v − p*) − dt·tau_n) − dt·tau_t)`, entry by entry (the tail of
/// [`Form::negative_residual`]).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn combine_residual<S: Simd, F: Form + ?Sized>(
    form: &F,
    simd: S,
    v: &[f64],
    p_star: &[f64],
    dt: f64,
    rhs: &mut [f64],
    tau_n: &[f64],
    tau_t: &[f64],
) {
    let nv = v.len();
    // M v, column by column.
    form.mul_mass(simd, v, &mut rhs[..nv]);
    for (((r, &p), &tn), &tt) in rhs.iter_mut().zip(p_star).zip(tau_n.iter()).zip(tau_t.iter()) {
        *r = -(((*r - p) - dt * tn) - dt * tt);
    }
}

/// A contact's coefficients `Cᵢ` of the Newton matrix (§4) from its state: the friction gradient
/// block and, in the two-way scheme only, the coupling column (`g = dfn/dvn`).
#[inline(always)]
pub(super) fn update_coefficients(
    fr: &ContactFriction,
    fn_: f64,
    g: f64,
    two_way: bool,
) -> UpdateCoefficients {
    let coupling =
        if two_way { [fr.mu_reg * fr.t_hat[0] * g, fr.mu_reg * fr.t_hat[1] * g, -g] } else { [0.0; 3] };
    UpdateCoefficients { d: fr.gradient_block(fn_), coupling }
}

/// Workspace of the dense form: the column-blocked Jacobian rows, the tile assembly and the
/// dense factorizations.
#[derive(Debug, Clone)]
pub(super) struct DenseWorkspace {
    /// Copies of M and of Jt stacked on Jn (`j`) with padded columns, made once per solve for
    /// the products (`j` only when the rows changed, see `copied`): one pass over the columns
    /// gives `vt` and `vn`.
    pub m: PaddedMatrix,
    pub j: PaddedMatrix,
    /// Up to [`DENSE_FORCES_MAX_DIM`] velocities: Jᵀ with each contact's rows as three
    /// consecutive columns (t0, t1, n), for `Jtᵀ ft` and `Jnᵀ fn` (made with `j`).
    pub jt_cols: PaddedMatrix,
    pub dense_forces: bool,
    pub blocks: ContactBlocks,
    pub newton: NewtonMatrix,
    pub ldlt: Ldlt,
    pub lu: PartialPivLu,
    /// Whether the per-iteration products and the assembly use fused multiply-adds: two-way
    /// problems from [`FUSED_MIN_DIM`] velocities up. Everywhere else Eigen's rounding, and so
    /// Drake's bits (with the LU's, Eigen's order below `BLOCKED_MIN_DIM`).
    pub fused: bool,
    /// The [`ContactBlocks::generation`] at which `j` and `jt_cols` were copied (0: not current).
    /// The blocks hold the same bits, so an unchanged generation means unchanged copies.
    pub copied: u64,
}

impl DenseWorkspace {
    pub fn new(nv: usize) -> Self {
        Self {
            m: PaddedMatrix::default(),
            j: PaddedMatrix::default(),
            jt_cols: PaddedMatrix::default(),
            dense_forces: false,
            blocks: ContactBlocks::default(),
            newton: NewtonMatrix::default(),
            ldlt: Ldlt::with_capacity(nv),
            lu: PartialPivLu::with_capacity(nv),
            fused: false,
            copied: 0,
        }
    }
}

/// The dense form: M (nv×nv), Jn (nc×nv) and Jt (2nc×nv) as the caller's column-major views,
/// with Drake's arithmetic (bit-identical to Drake below [`FUSED_MIN_DIM`], and in one-way
/// problems below `BLOCKED_MIN_DIM`).
pub(super) struct DenseForm<'w, 'a> {
    pub ws: &'w mut DenseWorkspace,
    pub m: DMatrixView<'a, f64>,
    pub jn: DMatrixView<'a, f64>,
    pub jt: DMatrixView<'a, f64>,
}

/// `out = m·v` column by column (see [`PaddedMatrix::mul_vec`]), fused or in Eigen's rounding.
#[inline(always)]
fn mul_dense<S: Simd>(simd: S, fused: bool, out: &mut [f64], m: &PaddedMatrix, v: &[f64]) {
    if fused {
        m.mul_vec::<S, true>(simd, v, out);
    } else {
        m.mul_vec::<S, false>(simd, v, out);
    }
}

impl Form for DenseForm<'_, '_> {
    #[inline(always)]
    fn prepare(&mut self, nc: usize, dt: f64, two_way: bool) -> Result<(), TamsiError> {
        let nv = self.m.nrows();
        let ws = &mut *self.ws;
        let failed = |what| move |elements| TamsiError::AllocationFailed { what, elements, element_size: 8 };
        ws.m.copy_from(&self.m).map_err(failed("TAMSI padded copy of M"))?;
        let copied = ws.copied;
        ws.copied = 0;
        ws.blocks.prepare(&self.jt, &self.jn)?;
        let generation = ws.blocks.generation();
        // Rows bit for bit those of the copies (the blocks' generation unchanged since they
        // were made): the copies stand.
        ws.dense_forces = nv <= DENSE_FORCES_MAX_DIM;
        if copied == 0 || copied != generation {
            ws.j.copy_stacked_from(&self.jt, &self.jn).map_err(failed("TAMSI padded copy of Jt and Jn"))?;
            if ws.dense_forces {
                let (jt, jn) = (&self.jt, &self.jn);
                let entry = |r: usize, c: usize| {
                    let (i, k) = (c / 3, c % 3);
                    if k < 2 { jt[(2 * i + k, r)] } else { jn[(i, r)] }
                };
                ws.jt_cols
                    .copy_with(nv, 3 * nc, entry)
                    .map_err(failed("TAMSI transposed copy of Jt and Jn"))?;
            }
        }
        ws.copied = generation;
        ws.newton.prepare(&ws.blocks, nv, nc, dt)?;
        ws.fused = two_way && nv >= FUSED_MIN_DIM;
        Ok(())
    }

    #[inline(always)]
    fn contact_velocities<S: Simd>(&self, simd: S, v: &[f64], vt: &mut [f64], vn: &mut [f64]) {
        if self.ws.fused {
            self.ws.j.mul_vec_stacked::<S, true>(simd, v, vt, vn);
        } else {
            self.ws.j.mul_vec_stacked::<S, false>(simd, v, vt, vn);
        }
    }

    #[inline(always)]
    fn mul_mass<S: Simd>(&self, simd: S, v: &[f64], out: &mut [f64]) {
        mul_dense(simd, self.ws.fused, out, &self.ws.m, v);
    }

    #[inline(always)]
    fn one_pass_residual(&self) -> Option<(&PaddedMatrix, &PaddedMatrix, bool)> {
        let ws = &*self.ws;
        ws.dense_forces.then_some((&ws.jt_cols, &ws.m, ws.fused))
    }

    #[inline(always)]
    fn generalized_forces<S: Simd>(
        &self,
        simd: S,
        tau_n: &mut [f64],
        tau_t: &mut [f64],
        forces: impl Fn(usize) -> (f64, f64, f64),
    ) {
        if self.ws.dense_forces {
            // Writes all `force_len` entries.
            self.ws.jt_cols.add_triples(simd, tau_t, tau_n, forces);
        } else {
            tau_n.fill(0.0);
            tau_t.fill(0.0);
            self.ws.blocks.add_transposed(simd, tau_t, tau_n, forces);
        }
    }

    #[inline(always)]
    fn force_len(nv: usize) -> usize {
        nv.div_ceil(BLOCK) * BLOCK
    }

    #[inline(always)]
    fn start(&mut self, _p_star: &[f64], _v: &mut [f64]) -> bool {
        true
    }

    #[inline(always)]
    fn newton_step<S: Simd>(
        &mut self,
        simd: S,
        two_way: bool,
        coefficients: impl Fn(usize) -> UpdateCoefficients + Sync,
        rhs: &mut [f64],
        tmp: &mut [f64],
    ) -> bool {
        // Drake solves first and checks the one-way factorization afterwards.
        let factored = self.factor_newton_matrix(simd, two_way, coefficients);
        self.solve_factored(two_way, rhs, tmp);
        factored
    }

    #[inline(always)]
    fn write_newton_matrix<S: Simd>(
        &mut self,
        simd: S,
        two_way: bool,
        coefficients: impl Fn(usize) -> UpdateCoefficients,
        out: &mut DMatrixViewMut<'_, f64>,
    ) -> Result<(), BlockSparseError> {
        let nv = self.m.nrows();
        let ws = &mut *self.ws;
        let j = ws.lu.storage_mut(nv);
        ws.newton.assemble(simd, j, nv, &ws.m, &ws.blocks, two_way, ws.fused, coefficients);
        for (c, src) in j.chunks_exact(nv.max(1)).take(nv).enumerate() {
            out.column_mut(c).as_mut_slice().copy_from_slice(src);
        }
        Ok(())
    }

    #[inline(always)]
    fn solve_without_contact(&mut self, p_star: &[f64], v: &mut [f64]) -> bool {
        let nv = self.m.nrows();
        let ldlt = &mut self.ws.ldlt;
        ldlt.matrix_mut(nv).copy_from(&self.m);
        let factored = ldlt.factor();
        v.copy_from_slice(p_star);
        ldlt.solve_in_place(v);
        factored.is_ok()
    }

    #[inline(always)]
    fn prepare_products(&mut self) -> Result<(), TamsiError> {
        self.ws.blocks.prepare(&self.jt, &self.jn)
    }

    #[inline(always)]
    fn factor_newton_matrix<S: Simd>(
        &mut self,
        simd: S,
        two_way: bool,
        coefficients: impl Fn(usize) -> UpdateCoefficients,
    ) -> bool {
        let nv = self.m.nrows();
        let ws = &mut *self.ws;
        if two_way {
            let j = ws.lu.padded_storage_mut(nv);
            let ld = padded_dim(nv);
            ws.newton.assemble(simd, j, ld, &ws.m, &ws.blocks, true, ws.fused, coefficients);
            ws.lu.factor();
            true
        } else {
            let j = ws.ldlt.storage_mut(nv);
            ws.newton.assemble(simd, j, nv, &ws.m, &ws.blocks, false, ws.fused, coefficients);
            ws.ldlt.factor().is_ok()
        }
    }

    #[inline(always)]
    fn solve_factored(&mut self, two_way: bool, b: &mut [f64], tmp: &mut [f64]) {
        if two_way {
            self.ws.lu.solve_in_place(b, tmp);
        } else {
            self.ws.ldlt.solve_in_place(b);
        }
    }

    #[inline(always)]
    fn solve_factored_transposed(&mut self, two_way: bool, b: &mut [f64], tmp: &mut [f64]) {
        if two_way {
            self.ws.lu.solve_transposed_in_place(b, tmp);
        } else {
            self.ws.ldlt.solve_transposed_in_place(b);
        }
    }

    #[inline(always)]
    fn add_contact_force(&self, i: usize, (ft0, ft1, fn_): (f64, f64, f64), out: &mut [f64]) {
        let blocks = &self.ws.blocks;
        for &b in blocks.blocks_of(i) {
            let b = b as usize;
            let r = blocks.rows(b, i);
            for (w, o) in out[b * BLOCK..(b + 1) * BLOCK].iter_mut().enumerate() {
                *o += ft0 * r[w] + ft1 * r[BLOCK + w] + fn_ * r[2 * BLOCK + w];
            }
        }
    }
}

/// Workspace of the block form.
#[derive(Debug, Clone, Default)]
pub(super) struct BlockWorkspace {
    pub newton: BlockNewtonMatrix,
    dt: f64,
    /// The contacts and trees cut for the pool's participants (prepared when a pool is used).
    split: WorkSplit,
    /// Whether this solve's per-contact and per-tree phases run on the pool.
    split_contacts: bool,
    /// Whether this solve's iterations run as one pool phase by islands
    /// ([`Form::fused_iteration`]), and that phase's per-contact state.
    fused: bool,
    order: IslandOrder,
    /// The free trees' solve at the start on the pool.
    free: FreeSplit,
}

/// The trees without contact cut into chunks of consecutive free trees for their solve at the
/// start on the pool ([`Form::start`]): each chunk factors its trees' M blocks in its own LDLᵀ
/// and writes their velocities in place (`crate::parallel::Owned`).
#[derive(Debug, Clone, Default)]
struct FreeSplit {
    /// Whether this solve's free trees are solved on the pool.
    on: bool,
    chunks: usize,
    /// Chunk p solves `free_trees()[cuts[p]..cuts[p + 1]]`.
    cuts: Vec<usize>,
    /// `0..=chunks`, the bounds of the per-chunk storage.
    index: Vec<usize>,
    /// The chunk of dof j (`u32::MAX`: an island's dof).
    owner: Vec<u32>,
    ldlt: Vec<Ldlt>,
    /// Per chunk, whether every M block factored.
    ok: Vec<bool>,
}

impl FreeSplit {
    /// Cuts the free trees of `newton` into `chunks` of about equal cost and grows the storage.
    fn prepare(
        &mut self,
        system: &BlockSparseSystem<'_>,
        newton: &BlockNewtonMatrix,
        chunks: usize,
    ) -> Result<(), TamsiError> {
        let layout = system.layout();
        let free = newton.islands().free_trees();
        let nv = layout.num_velocities();
        let what = "TAMSI free trees' split";
        let failed = |elements| TamsiError::AllocationFailed { what, elements, element_size: 8 };
        for v in [&mut self.cuts, &mut self.index] {
            try_grow(v, chunks + 1, 0, what).map_err(|_| failed(chunks + 1))?;
        }
        try_grow(&mut self.owner, nv, 0, what).map_err(|_| failed(nv))?;
        try_grow(&mut self.ok, chunks, true, what).map_err(|_| failed(chunks))?;
        try_grow(&mut self.ldlt, chunks, Ldlt::default(), what).map_err(|_| failed(chunks))?;
        let largest = free.iter().map(|&t| layout.tree_dofs(t as usize)).max().unwrap_or(0);
        for ldlt in &mut self.ldlt[..chunks] {
            ldlt.try_reserve(largest).map_err(|_| failed(largest.saturating_mul(largest)))?;
        }
        // An LDLᵀ of n dofs and its copy and solves: about n³/3 + 3n² flops, plus the per-tree
        // bookkeeping.
        let cost = |j: usize| {
            let n = layout.tree_dofs(free[j] as usize) as f64;
            n * n * n / 3.0 + 3.0 * n * n + 100.0
        };
        crate::parallel::balanced_cuts(free.len(), cost, &mut self.cuts[..chunks + 1]);
        self.owner[..nv].fill(u32::MAX);
        for p in 0..=chunks {
            self.index[p] = p;
        }
        for p in 0..chunks {
            for &t in &free[self.cuts[p]..self.cuts[p + 1]] {
                self.owner[layout.tree_range(t as usize)].fill(p as u32);
            }
        }
        self.chunks = chunks;
        Ok(())
    }
}

/// The per-contact state of the fused iteration that stays inside the phase, in island order
/// (island 0's contacts, then island 1's, …: each chunk of islands owns a consecutive range), so
/// that the participants write disjoint parts (`crate::parallel::Parts`); and which chunk owns
/// each contact and each dof, for what the chunks write in contact and dof order
/// (`crate::parallel::Owned`: `vt`, `dvt`, `dvn`, Δv).
#[derive(Debug, Clone, Default)]
struct IslandOrder {
    /// Chunk p's contacts are at positions `bounds[p]..bounds[p + 1]`.
    bounds: Vec<usize>,
    /// `0..=chunks`, the bounds of the per-chunk scratch.
    index: Vec<usize>,
    /// Contact i's position.
    pos: Vec<usize>,
    /// The chunk of contact i, of dof j (`u32::MAX` for a free tree's dofs).
    contact_owner: Vec<u32>,
    dof_owner: Vec<u32>,
    vn: Vec<f64>,
    fn_: Vec<f64>,
    g: Vec<f64>,
    friction: Vec<ContactFriction>,
    /// Per chunk, the minimum of its contacts' limiter factors (`None`: one failed).
    alpha: Vec<Option<f64>>,
    /// Per chunk, `Jnᵀ fn` and `Jtᵀ ft` of one tree (`2·largest tree` values),
    /// `tau_stride` apart.
    tau: Vec<f64>,
    tree: usize,
    /// Entries per chunk of `tau`: `2·tree` rounded up to a cache line, plus one line, so that
    /// no two chunks write the same line.
    tau_stride: usize,
}

impl IslandOrder {
    /// Positions and room for the islands of `newton` cut in its chunks.
    fn prepare(
        &mut self,
        system: &BlockSparseSystem<'_>,
        newton: &BlockNewtonMatrix,
    ) -> Result<(), TamsiError> {
        let layout = system.layout();
        let (nc, islands, cuts) = (layout.num_contacts(), newton.islands(), newton.island_cuts());
        let chunks = cuts.len() - 1;
        let tree = (0..layout.num_trees()).map(|t| layout.tree_dofs(t)).max().unwrap_or(0);
        let what = "TAMSI fused iteration state";
        let failed = |elements| TamsiError::AllocationFailed { what, elements, element_size: 8 };
        let grow = |v: &mut Vec<f64>, len| try_grow(v, len, 0.0, what).map_err(|_| failed(len));
        let nv = layout.num_velocities();
        for (v, len) in [(&mut self.vn, nc), (&mut self.fn_, nc), (&mut self.g, nc)] {
            grow(v, len)?;
        }
        let tau_stride = (2 * tree).next_multiple_of(8) + 8;
        grow(&mut self.tau, tau_stride * chunks)?;
        try_grow(&mut self.friction, nc, ContactFriction::default(), what).map_err(|_| failed(nc))?;
        try_grow(&mut self.alpha, chunks, None, what).map_err(|_| failed(chunks))?;
        for (v, len) in [(&mut self.bounds, chunks + 1), (&mut self.index, chunks + 1), (&mut self.pos, nc)] {
            try_grow(v, len, 0, what).map_err(|_| failed(len))?;
        }
        for (v, len) in [(&mut self.contact_owner, nc), (&mut self.dof_owner, nv)] {
            try_grow(v, len, 0, what).map_err(|_| failed(len))?;
        }
        for (p, (b, x)) in self.bounds.iter_mut().zip(&mut self.index).take(chunks + 1).enumerate() {
            *b = islands.contact_offset(cuts[p]);
            *x = p;
        }
        self.dof_owner[..nv].fill(u32::MAX);
        for p in 0..chunks {
            for k in cuts[p]..cuts[p + 1] {
                let start = islands.contact_offset(k);
                for (j, &i) in islands.contacts(k).iter().enumerate() {
                    self.pos[i as usize] = start + j;
                    self.contact_owner[i as usize] = p as u32;
                }
                for &t in islands.trees(k) {
                    self.dof_owner[layout.tree_range(t as usize)].fill(p as u32);
                }
            }
        }
        self.tree = tree;
        self.tau_stride = tau_stride;
        Ok(())
    }
}

/// The block-sparse form: M by trees, J by contacts and trees, Newton matrices by islands
/// (`docs/block_sparse.md` §4). Trees that no contact touches are solved once, exactly, at the
/// start (`M_t v_t = p*_t`), and take no part in the iteration.
///
/// With a `pool` (`TamsiParameters::num_threads` ≥ 2) the contacts' velocities and friction, the
/// residual (by trees) and the islands' Newton steps run on its participants; every value gets
/// the operations of the sequential solve in the same order, so the bits are the same
/// (`docs/performance.md` §8). [`Form::prepare`] drops the pool for the solve when one island
/// carries so much of the work that threads could not gain [`MIN_ISLAND_GAIN`].
pub(super) struct BlockForm<'w, 'a> {
    pub ws: &'w mut BlockWorkspace,
    pub system: BlockSparseSystem<'a>,
    pub pool: Option<&'w WorkerPool>,
}

/// Contact i's Newton weight `Wᵢ` in the block row order (normal, tangent 1, tangent 2), from its
/// coefficients `Cᵢ` in TAMSI's order (tangent 1, tangent 2, normal): `Aᵢ Cᵢ Aᵢᵀ = Jᵢᵀ Wᵢ Jᵢ`.
#[inline]
fn block_weight(c: &UpdateCoefficients) -> [[f64; 3]; 3] {
    let [d00, d01, d11] = c.d;
    let [c02, c12, c22] = c.coupling;
    [[c22, 0.0, 0.0], [c02, d00, d01], [c12, d01, d11]]
}

impl Form for BlockForm<'_, '_> {
    #[inline(always)]
    fn prepare(&mut self, nc: usize, dt: f64, two_way: bool) -> Result<(), TamsiError> {
        let kind = if two_way { Factorization::Lu } else { Factorization::Ldlt };
        self.ws.dt = dt;
        self.ws.newton.prepare(&self.system, kind)?;
        self.ws.split_contacts = false;
        self.ws.fused = false;
        self.ws.free.on = false;
        if let Some(pool) = self.pool {
            let chunks = chunk_count(pool.threads());
            let islands = self.ws.newton.islands().count();
            let parts = fused_chunk_count(pool.threads(), islands);
            self.ws.newton.prepare_parallel_with(&self.system, parts, &IslandCost::TAMSI_FUSED)?;
            let bound = (pool.threads() as f64).min(1.0 / self.ws.newton.largest_island_share());
            if bound < MIN_ISLAND_GAIN {
                self.pool = None;
                return Ok(());
            }
            self.ws.split_contacts = nc >= MIN_CONTACTS_PER_THREAD * pool.threads();
            self.ws.fused = self.ws.newton.runs_parallel(pool);
            if self.ws.split_contacts || self.ws.fused {
                self.ws.split.prepare(&self.system, chunks)?;
            }
            if self.ws.fused {
                self.ws.order.prepare(&self.system, &self.ws.newton)?;
            }
            let free = self.ws.newton.islands().free_trees().len();
            if free >= MIN_FREE_TREES_PER_THREAD * pool.threads() {
                self.ws.free.prepare(&self.system, &self.ws.newton, chunks)?;
                self.ws.free.on = true;
            }
        }
        Ok(())
    }

    #[inline(always)]
    fn contact_velocities<S: Simd>(&self, simd: S, v: &[f64], vt: &mut [f64], vn: &mut [f64]) {
        let Some(pool) = self.contact_pool() else {
            return self.contact_velocities_of(simd, v, 0..vn.len(), vt, vn);
        };
        let cuts = self.ws.split.contact_bounds();
        let (vt, vn) = (Parts::new(vt, cuts, 2), Parts::new(vn, cuts, 1));
        pool.run(cuts.len() - 1, &|p| {
            dispatch_fn(
                #[inline(always)]
                || {
                    self.contact_velocities_of(simd, v, cuts[p]..cuts[p + 1], vt.take(p), vn.take(p));
                },
            )
        });
    }

    #[inline(always)]
    fn contact_velocities_of<S: Simd>(
        &self,
        _simd: S,
        v: &[f64],
        range: std::ops::Range<usize>,
        vt: &mut [f64],
        vn: &mut [f64],
    ) {
        let rows = self.ws.newton.rows();
        for (i, (vn, vt)) in range.zip(vn.iter_mut().zip(vt.chunks_exact_mut(2))) {
            let [n, t1, t2] = rows.velocity(&self.system, i, v);
            *vn = n;
            vt[0] = t1;
            vt[1] = t2;
        }
    }

    #[inline(always)]
    fn evaluate_contacts<S: Simd>(
        &self,
        simd: S,
        v: &[f64],
        nc: usize,
        out: ContactOutputs<'_>,
        per_contact: &impl PerContact,
    ) {
        let Some(pool) = self.contact_pool() else {
            return evaluate_in_order(self, simd, v, 0..nc, out, per_contact);
        };
        let cuts = self.ws.split.contact_bounds();
        let ContactOutputs { vt, vn, fn_, g, friction } = out;
        let (vt, vn) = (Parts::new(vt, cuts, 2), Parts::new(vn, cuts, 1));
        let (fn_, g, friction) =
            (Parts::new(fn_, cuts, 1), Parts::new(g, cuts, 1), Parts::new(friction, cuts, 1));
        pool.run(cuts.len() - 1, &|p| {
            let out = ContactOutputs {
                vt: vt.take(p),
                vn: vn.take(p),
                fn_: fn_.take(p),
                g: g.take(p),
                friction: friction.take(p),
            };
            dispatch_fn(
                #[inline(always)]
                || evaluate_in_order(self, simd, v, cuts[p]..cuts[p + 1], out, per_contact),
            );
        });
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn negative_residual<S: Simd>(
        &self,
        simd: S,
        v: &[f64],
        p_star: &[f64],
        dt: f64,
        rhs: &mut [f64],
        tau_n: &mut [f64],
        tau_t: &mut [f64],
        forces: impl Fn(usize) -> (f64, f64, f64) + Sync,
    ) {
        let Some(pool) = self.contact_pool() else {
            self.generalized_forces(simd, tau_n, tau_t, forces);
            return combine_residual(self, simd, v, p_star, dt, rhs, tau_n, tau_t);
        };
        // By trees: each dof gets its contacts' terms in increasing contact order, as in
        // `generalized_forces`, then the same residual expression.
        let split = &self.ws.split;
        let (trees, dofs) = (split.tree_bounds(), split.dof_bounds());
        let nv = v.len();
        let rhs = Parts::new(&mut rhs[..nv], dofs, 1);
        let (tau_n, tau_t) = (Parts::new(&mut tau_n[..nv], dofs, 1), Parts::new(&mut tau_t[..nv], dofs, 1));
        let layout = self.system.layout();
        let rows = self.ws.newton.rows();
        pool.run(trees.len() - 1, &|p| {
            let (rhs, tau_n, tau_t) = (rhs.take(p), tau_n.take(p), tau_t.take(p));
            dispatch_fn(
                #[inline(always)]
                || {
                    let first = dofs[p];
                    for t in trees[p]..trees[p + 1] {
                        let r = layout.tree_range(t);
                        let local = r.start - first..r.end - first;
                        let (tn, tt) = (&mut tau_n[local.clone()], &mut tau_t[local.clone()]);
                        tn.fill(0.0);
                        tt.fill(0.0);
                        split.add_tree_forces(rows, &self.system, t, &forces, tt, tn);
                        let out = &mut rhs[local];
                        self.system.mul_m_tree(t, &v[r.clone()], out);
                        for (((o, &ps), &n), &tf) in
                            out.iter_mut().zip(&p_star[r]).zip(tn.iter()).zip(tt.iter())
                        {
                            *o = -(((*o - ps) - dt * n) - dt * tf);
                        }
                    }
                },
            )
        });
    }

    #[inline(always)]
    fn mul_mass<S: Simd>(&self, _simd: S, v: &[f64], out: &mut [f64]) {
        self.system.mul_m(v, out);
    }

    #[inline(always)]
    fn generalized_forces<S: Simd>(
        &self,
        _simd: S,
        tau_n: &mut [f64],
        tau_t: &mut [f64],
        forces: impl Fn(usize) -> (f64, f64, f64),
    ) {
        tau_n.fill(0.0);
        tau_t.fill(0.0);
        let rows = self.ws.newton.rows();
        for i in 0..self.system.num_contacts() {
            let (ft0, ft1, fn_) = forces(i);
            rows.add_split_force(&self.system, i, [ft0, ft1], fn_, tau_t, tau_n);
        }
    }

    #[inline(always)]
    fn force_len(nv: usize) -> usize {
        nv
    }

    /// Not inlined: the sequential solve, into which it would otherwise be inlined, keeps its
    /// code (measured: +0.2 % instructions on pile50 t0.3 when inlined); one call per iteration.
    /// The work handed to the pool runs inside `dispatch_fn` all the same.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn fused_iteration<S: Simd>(
        &mut self,
        _simd: S,
        v: &[f64],
        p_star: &[f64],
        two_way: bool,
        per_contact: &impl PerContact,
        limiter: &impl StepLimiter,
        rhs: &mut [f64],
        out: FusedOutputs<'_>,
    ) -> Option<bool> {
        let pool = self.pool.filter(|_| self.ws.fused)?;
        let kind = if two_way { Factorization::Lu } else { Factorization::Ldlt };
        let BlockWorkspace { newton, dt, split, order, .. } = &mut *self.ws;
        let (system, dt) = (&self.system, *dt);
        let layout = system.layout();
        let nc = layout.num_contacts();
        let chunks = newton.island_cuts().len() - 1;
        // Δv is zero on the free trees (solved at the start), as `solve_in_place` leaves it; the
        // islands' entries are written by their chunks.
        for &t in newton.islands().free_trees() {
            rhs[layout.tree_range(t as usize)].fill(0.0);
        }
        let IslandOrder {
            bounds,
            index,
            pos,
            contact_owner,
            dof_owner,
            vn,
            fn_,
            g,
            friction,
            alpha,
            tau,
            tree,
            tau_stride,
        } = order;
        let factored = {
            let (bounds, pos, tree, split) = (&bounds[..chunks + 1], &pos[..nc], *tree, &*split);
            // Every slice below is handed out by chunk with one atomic claim per chunk (`Claims`:
            // not one per slice on as many cache lines shared by the threads).
            let claims = Claims::new();
            let c = &claims;
            let vn = Parts::claimed(vn, bounds, 1, c);
            let (fn_, g) = (Parts::claimed(fn_, bounds, 1, c), Parts::claimed(g, bounds, 1, c));
            let friction = Parts::claimed(friction, bounds, 1, c);
            let index = &index[..chunks + 1];
            let chunk_alpha = Parts::claimed(alpha, index, 1, c);
            let tau = Parts::claimed(tau, index, *tau_stride, c);
            let contact_owner = &contact_owner[..nc];
            let out_vt = Owned::claimed(out.vt, contact_owner, 2, c);
            let out_dvt = Owned::claimed(out.dvt, contact_owner, 2, c);
            let out_dvn = Owned::claimed(out.dvn, contact_owner, 1, c);
            let out_dv = Owned::claimed(rhs, &dof_owner[..v.len()], 1, c);
            newton.islands_on(pool, system, dt, kind, &|mut chunk| {
                let p = chunk.index();
                let base = bounds[p];
                let claim = claims.take(p);
                let (vn, fn_) = (vn.take_with(&claim), fn_.take_with(&claim));
                let (g, fr) = (g.take_with(&claim), friction.take_with(&claim));
                let (chunk_alpha, tau) = (&mut chunk_alpha.take_with(&claim)[0], tau.take_with(&claim));
                let (mut vt, mut dvt) = (out_vt.take_with(&claim), out_dvt.take_with(&claim));
                let (mut dvn, mut dv_out) = (out_dvn.take_with(&claim), out_dv.take_with(&claim));
                let (islands, rows) = (chunk.islands(), chunk.rows());
                dispatch_fn(
                    #[inline(always)]
                    || {
                        // The minimum from 1 of the chunk's factors (`None` once one fails).
                        let mut alpha = Some(1.0);
                        for k in chunk.range() {
                            let contacts = islands.contacts(k);
                            // The contacts at v (`evaluate_in_order`'s operations).
                            for &i in contacts {
                                let (i, j) = (i as usize, pos[i as usize] - base);
                                let [n, t1, t2] = rows.velocity(system, i, v);
                                vn[j] = n;
                                vt.item(i).copy_from_slice(&[t1, t2]);
                                (fn_[j], g[j], fr[j]) = per_contact(i, [t1, t2], n);
                            }
                            let (fn_, g, fr) = (&*fn_, &*g, &*fr);
                            let forces = {
                                #[inline(always)]
                                |i: usize| {
                                    let j = pos[i] - base;
                                    (fr[j].ft[0], fr[j].ft[1], fn_[j])
                                }
                            };
                            let weight = {
                                #[inline(always)]
                                |i: usize| {
                                    let j = pos[i] - base;
                                    block_weight(&update_coefficients(&fr[j], fn_[j], g[j], two_way))
                                }
                            };
                            // −R on the island's trees, in its local numbering (the tree
                            // phase's operations in `negative_residual`), then the step.
                            let dv = chunk.solve(
                                k,
                                &weight,
                                #[inline(always)]
                                |x| {
                                    let (tn, tt) = tau.split_at_mut(tree);
                                    for &t in islands.trees(k) {
                                        let t = t as usize;
                                        let r = layout.tree_range(t);
                                        let (n, off) = (r.len(), islands.local_offset(t));
                                        let (tn, tt) = (&mut tn[..n], &mut tt[..n]);
                                        tn.fill(0.0);
                                        tt.fill(0.0);
                                        split.add_tree_forces(rows, system, t, &forces, tt, tn);
                                        let out = &mut x[off..off + n];
                                        system.mul_m_tree(t, &v[r.clone()], out);
                                        for (((o, &ps), &n), &tf) in
                                            out.iter_mut().zip(&p_star[r]).zip(tn.iter()).zip(tt.iter())
                                        {
                                            *o = -(((*o - ps) - dt * n) - dt * tf);
                                        }
                                    }
                                },
                            );
                            // Δv of the island's trees in dof order (what the write-back after
                            // the phase did).
                            for &t in islands.trees(k) {
                                let (r, off) =
                                    (layout.tree_range(t as usize), islands.local_offset(t as usize));
                                let n = r.len();
                                dv_out.items(r).copy_from_slice(&dv[off..off + n]);
                            }
                            // J Δv of the island's contacts, from the island's solution, and
                            // each contact's limiter factor (only the minimum is global).
                            for &i in contacts {
                                let i = i as usize;
                                let (a, b) = layout.contact_trees(i);
                                let first =
                                    [islands.local_offset(a), b.map_or(0, |b| islands.local_offset(b))];
                                let [n, t1, t2] = rows.velocity_at(system, i, first, dv);
                                dvn.item(i)[0] = n;
                                dvt.item(i).copy_from_slice(&[t1, t2]);
                                let vt = vt.item(i);
                                alpha = match (alpha, limiter([vt[0], vt[1]], [t1, t2])) {
                                    (Some(x), Some(y)) => Some(cxx_min(x, y)),
                                    _ => None,
                                };
                            }
                        }
                        *chunk_alpha = alpha;
                    },
                )
            })
        };
        // Drake's α over all contacts, from the chunks' minima in chunk order.
        *out.alpha = alpha[..chunks].iter().try_fold(1.0, |a, &c| c.map(|c| cxx_min(a, c)));
        Some(factored)
    }

    #[inline(always)]
    fn start(&mut self, p_star: &[f64], v: &mut [f64]) -> bool {
        let layout = self.system.layout();
        let Some(pool) = self.pool.filter(|_| self.ws.free.on) else {
            for &t in self.ws.newton.islands().free_trees() {
                let r = layout.tree_range(t as usize);
                v[r.clone()].copy_from_slice(&p_star[r]);
            }
            return self.ws.newton.solve_free_trees(&self.system, v);
        };
        // By chunks of free trees, each tree with the operations of `solve_free_trees`.
        let BlockWorkspace { newton, free: split, .. } = &mut *self.ws;
        let (free, system, chunks) = (newton.islands().free_trees(), &self.system, split.chunks);
        let FreeSplit { cuts, index, owner, ldlt, ok, .. } = split;
        let (cuts, index) = (&cuts[..chunks + 1], &index[..chunks + 1]);
        {
            let claims = Claims::new();
            let c = &claims;
            let (ldlt, ok) = (
                Parts::claimed(&mut ldlt[..chunks], index, 1, c),
                Parts::claimed(&mut ok[..chunks], index, 1, c),
            );
            let out = Owned::claimed(v, &owner[..layout.num_velocities()], 1, c);
            pool.run(chunks, &|p| {
                let claim = claims.take(p);
                let (ldlt, ok) = (&mut ldlt.take_with(&claim)[0], &mut ok.take_with(&claim)[0]);
                let mut out = out.take_with(&claim);
                *ok = true;
                for &t in &free[cuts[p]..cuts[p + 1]] {
                    let r = layout.tree_range(t as usize);
                    let x = out.items(r.clone());
                    x.copy_from_slice(&p_star[r]);
                    *ok &= BlockNewtonMatrix::solve_free_tree(ldlt, system, t as usize, x);
                }
            });
        }
        ok[..chunks].iter().all(|&o| o)
    }

    #[inline(always)]
    fn newton_step<S: Simd>(
        &mut self,
        _simd: S,
        two_way: bool,
        coefficients: impl Fn(usize) -> UpdateCoefficients + Sync,
        rhs: &mut [f64],
        _tmp: &mut [f64],
    ) -> bool {
        let kind = if two_way { Factorization::Lu } else { Factorization::Ldlt };
        let weight = |i| block_weight(&coefficients(i));
        self.ws.newton.factor_and_solve_on(self.pool, &self.system, self.ws.dt, kind, weight, rhs)
    }

    #[inline(always)]
    fn write_newton_matrix<S: Simd>(
        &mut self,
        _simd: S,
        _two_way: bool,
        coefficients: impl Fn(usize) -> UpdateCoefficients,
        out: &mut DMatrixViewMut<'_, f64>,
    ) -> Result<(), BlockSparseError> {
        self.ws.newton.write_dense(&self.system, self.ws.dt, |i| block_weight(&coefficients(i)), out)
    }

    #[inline(always)]
    fn solve_without_contact(&mut self, p_star: &[f64], v: &mut [f64]) -> bool {
        // Every tree is free.
        self.start(p_star, v)
    }

    #[inline(always)]
    fn prepare_products(&mut self) -> Result<(), TamsiError> {
        // The products read the system directly; the islands are those of the last `prepare`.
        Ok(())
    }

    #[inline(always)]
    fn factor_newton_matrix<S: Simd>(
        &mut self,
        _simd: S,
        two_way: bool,
        coefficients: impl Fn(usize) -> UpdateCoefficients,
    ) -> bool {
        let kind = if two_way { Factorization::Lu } else { Factorization::Ldlt };
        let newton = &mut self.ws.newton;
        newton.assemble_and_factor(&self.system, self.ws.dt, kind, |i| block_weight(&coefficients(i)))
    }

    #[inline(always)]
    fn solve_factored(&mut self, _two_way: bool, b: &mut [f64], tmp: &mut [f64]) {
        self.solve_islands_and_free_trees(b, tmp, false);
    }

    #[inline(always)]
    fn solve_factored_transposed(&mut self, _two_way: bool, b: &mut [f64], tmp: &mut [f64]) {
        self.solve_islands_and_free_trees(b, tmp, true);
    }

    #[inline(always)]
    fn add_contact_force(&self, i: usize, (ft0, ft1, fn_): (f64, f64, f64), out: &mut [f64]) {
        self.system.add_contact_force(i, [fn_, ft0, ft1], out);
    }
}

impl BlockForm<'_, '_> {
    /// The pool, when this solve's per-contact and per-tree phases run on it.
    #[inline(always)]
    fn contact_pool(&self) -> Option<&WorkerPool> {
        self.pool.filter(|_| self.ws.split_contacts)
    }

    /// `J x = b` (or `Jᵀ x = b`) on every dof: the islands with their factors, the free trees with
    /// their M blocks (symmetric, so the same solve serves `Jᵀ`), the latter only when `b` has a
    /// nonzero entry there (each call factors the free trees' blocks again).
    fn solve_islands_and_free_trees(&mut self, b: &mut [f64], tmp: &mut [f64], transposed: bool) {
        let layout = self.system.layout();
        let newton = &mut self.ws.newton;
        let free = newton.islands().free_trees();
        let free_rhs = free.iter().any(|&t| b[layout.tree_range(t as usize)].iter().any(|&x| x != 0.0));
        if free_rhs {
            tmp[..b.len()].copy_from_slice(b);
        }
        if transposed {
            newton.solve_transposed_in_place(&self.system, b);
        } else {
            newton.solve_in_place(&self.system, b);
        }
        if free_rhs {
            for &t in newton.islands().free_trees() {
                let r = layout.tree_range(t as usize);
                b[r.clone()].copy_from_slice(&tmp[r]);
            }
            newton.solve_free_trees(&self.system, b);
        }
    }
}
