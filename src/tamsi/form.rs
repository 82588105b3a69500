//! What the Newton iteration needs from the problem's data form (`docs/tamsi.md` §7.1,
//! `docs/block_sparse.md` §4): the products with M and J, and one Newton step. The iteration in
//! `solver.rs` is written once over [`Form`]; [`DenseForm`] (dense M, Jn, Jt, Drake's arithmetic)
//! and [`BlockForm`] (trees and islands) implement it.

use nalgebra::{DMatrixView, DMatrixViewMut};

use super::TamsiError;
use super::contact_blocks::{BLOCK, ContactBlocks};
use super::newton_matrix::{NewtonMatrix, UpdateCoefficients};
use crate::block_sparse::{BlockNewtonMatrix, BlockSparseError, BlockSparseSystem, Factorization};
use crate::linalg::simd::Simd;
use crate::linalg::{BLOCKED_MIN_DIM, Ldlt, PaddedMatrix, PartialPivLu, padded_dim};

/// The data-form-dependent operations of one TAMSI solve. Vectors are in the dense layout of the
/// problem: `v` and generalized forces nv, `vt` 2nc (two per contact), `vn` nc.
pub(super) trait Form {
    /// Per-solve setup for `nc` contacts and time step `dt`; grows the form's workspace
    /// fallibly (an allocation failure is an error, not an abort).
    fn prepare(&mut self, nc: usize, dt: f64, two_way: bool) -> Result<(), TamsiError>;

    /// `vt = Jt v`, `vn = Jn v`.
    fn contact_velocities<S: Simd>(&self, simd: S, v: &[f64], vt: &mut [f64], vn: &mut [f64]);

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
        coefficients: impl Fn(usize) -> UpdateCoefficients,
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

/// Workspace of the dense form: the column-blocked Jacobian rows, the tile assembly and the
/// dense factorizations.
#[derive(Debug, Clone)]
pub(super) struct DenseWorkspace {
    /// Copies of M, Jt and Jn with padded columns, made once per solve for the products.
    pub m: PaddedMatrix,
    pub jt: PaddedMatrix,
    pub jn: PaddedMatrix,
    pub blocks: ContactBlocks,
    pub newton: NewtonMatrix,
    pub ldlt: Ldlt,
    pub lu: PartialPivLu,
    /// Whether the per-iteration products use fused multiply-adds: two-way problems from
    /// `BLOCKED_MIN_DIM` velocities up, whose Newton matrix goes to the blocked LU and so differs
    /// from Eigen's in round-off anyway. Everywhere else Eigen's rounding, and so Drake's bits.
    pub fused: bool,
}

impl DenseWorkspace {
    pub fn new(nv: usize) -> Self {
        Self {
            m: PaddedMatrix::default(),
            jt: PaddedMatrix::default(),
            jn: PaddedMatrix::default(),
            blocks: ContactBlocks::default(),
            newton: NewtonMatrix::default(),
            ldlt: Ldlt::with_capacity(nv),
            lu: PartialPivLu::with_capacity(nv),
            fused: false,
        }
    }
}

/// The dense form: M (nv×nv), Jn (nc×nv) and Jt (2nc×nv) as the caller's column-major views,
/// with Drake's arithmetic (bit-identical to Drake below `BLOCKED_MIN_DIM`).
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
        ws.jt.copy_from(&self.jt).map_err(failed("TAMSI padded copy of Jt"))?;
        ws.jn.copy_from(&self.jn).map_err(failed("TAMSI padded copy of Jn"))?;
        ws.blocks.prepare(&self.jt, &self.jn)?;
        ws.newton.prepare(&ws.blocks, nv, nc, dt)?;
        ws.fused = two_way && nv >= BLOCKED_MIN_DIM;
        Ok(())
    }

    #[inline(always)]
    fn contact_velocities<S: Simd>(&self, simd: S, v: &[f64], vt: &mut [f64], vn: &mut [f64]) {
        mul_dense(simd, self.ws.fused, vt, &self.ws.jt, v);
        mul_dense(simd, self.ws.fused, vn, &self.ws.jn, v);
    }

    #[inline(always)]
    fn mul_mass<S: Simd>(&self, simd: S, v: &[f64], out: &mut [f64]) {
        mul_dense(simd, self.ws.fused, out, &self.ws.m, v);
    }

    #[inline(always)]
    fn generalized_forces<S: Simd>(
        &self,
        simd: S,
        tau_n: &mut [f64],
        tau_t: &mut [f64],
        forces: impl Fn(usize) -> (f64, f64, f64),
    ) {
        tau_n.fill(0.0);
        tau_t.fill(0.0);
        self.ws.blocks.add_transposed(simd, tau_t, tau_n, forces);
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
        coefficients: impl Fn(usize) -> UpdateCoefficients,
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
}

/// The block-sparse form: M by trees, J by contacts and trees, Newton matrices by islands
/// (`docs/block_sparse.md` §4). Trees that no contact touches are solved once, exactly, at the
/// start (`M_t v_t = p*_t`), and take no part in the iteration.
pub(super) struct BlockForm<'w, 'a> {
    pub ws: &'w mut BlockWorkspace,
    pub system: BlockSparseSystem<'a>,
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
    fn prepare(&mut self, _nc: usize, dt: f64, two_way: bool) -> Result<(), TamsiError> {
        let kind = if two_way { Factorization::Lu } else { Factorization::Ldlt };
        self.ws.dt = dt;
        Ok(self.ws.newton.prepare(&self.system, kind)?)
    }

    #[inline(always)]
    fn contact_velocities<S: Simd>(&self, _simd: S, v: &[f64], vt: &mut [f64], vn: &mut [f64]) {
        let rows = self.ws.newton.rows();
        for (i, (vn, vt)) in vn.iter_mut().zip(vt.chunks_exact_mut(2)).enumerate() {
            let [n, t1, t2] = rows.velocity(&self.system, i, v);
            *vn = n;
            vt[0] = t1;
            vt[1] = t2;
        }
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

    #[inline(always)]
    fn start(&mut self, p_star: &[f64], v: &mut [f64]) -> bool {
        let layout = self.system.layout();
        for &t in self.ws.newton.islands().free_trees() {
            let r = layout.tree_range(t as usize);
            v[r.clone()].copy_from_slice(&p_star[r]);
        }
        self.ws.newton.solve_free_trees(&self.system, v)
    }

    #[inline(always)]
    fn newton_step<S: Simd>(
        &mut self,
        _simd: S,
        two_way: bool,
        coefficients: impl Fn(usize) -> UpdateCoefficients,
        rhs: &mut [f64],
        _tmp: &mut [f64],
    ) -> bool {
        let kind = if two_way { Factorization::Lu } else { Factorization::Ldlt };
        let newton = &mut self.ws.newton;
        let factored =
            newton.assemble_and_factor(&self.system, self.ws.dt, kind, |i| block_weight(&coefficients(i)));
        newton.solve_in_place(&self.system, rhs);
        factored
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
