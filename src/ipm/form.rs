//! What the interior-point iteration needs from the problem's data form (`docs/ipm.md` §11,
//! `docs/block_sparse.md` §5): the products with M and J, the free velocity `M⁻¹p*`, and the
//! condensed Newton matrix `M + reg·I + Σᵢ Jᵢᵀ Dᵢ Jᵢ` (factor, solve). Both iterations (the engine's
//! and Dojo's) are written once over [`Form`]; [`DenseForm`] (dense M, Jn, Jt), [`BlockForm`]
//! (trees, contact blocks, islands) and [`DelassusForm`] (contact space, `W`'s blocks,
//! `form/delassus.rs`) implement it.

use nalgebra::DMatrixView;

use super::regularization::{TreeContacts, dense_normal_delassus};
use super::{ContactModel, IpmError};
use crate::block_sparse::{
    BlockNewtonMatrix, BlockSparseError, BlockSparseSystem, ContactRows, Factorization, WorkSplit,
};
use crate::linalg::simd::{self, Simd, WithSimd, dispatch_fn};
use crate::linalg::{Ldlt, PartialPivLu, grow};
use crate::parallel::{Parts, WorkerPool, chunk_count};

/// Fewest contacts per thread for which the per-contact and per-tree passes of a block solve run
/// on the pool (below it a pass costs less than its hand-off: `docs/performance.md` §8).
const MIN_CONTACTS_PER_THREAD: usize = 32;

mod delassus;
pub(crate) use delassus::{DelassusBlocks, DelassusForm, DelassusWorkspace, SparseSlot};

/// The data-form-dependent operations of one interior-point solve. Vectors are in the problem's
/// dof order (n entries); contact velocities and impulses are (normal, tangent 1, tangent 2).
/// `Sync`: the block form's parallel passes share it with the pool's threads.
pub(crate) trait Form: Sync {
    /// The cut of this solve's per-contact and per-tree passes for a pool's participants, when
    /// they run on one (block form, `num_threads` ≥ 2, enough contacts); `None`: sequential.
    #[inline(always)]
    fn split(&self) -> Option<Split<'_>> {
        None
    }

    /// Contact i's velocity `J_i v` (m/s), the first `dirs` components (1 for impact contacts,
    /// whose tangent rows are ignored, else 3); the others are 0.
    fn contact_velocity(&self, i: usize, dirs: usize, v: &[f64]) -> [f64; 3];

    /// `out −= J_iᵀ b` over the first `dirs` components of the local impulse `b` (N·s).
    fn sub_contact_impulse(&self, i: usize, dirs: usize, b: &[f64; 3], out: &mut [f64]);

    /// `out += M x`.
    fn add_mass_product(&self, x: &[f64], out: &mut [f64]);

    /// Largest diagonal entry of M (in absolute value).
    fn mass_diagonal_max(&self) -> f64;

    /// Velocities that the form solves directly, before the iteration (the block form's trees
    /// that no contact touches: `v_t = v0_t + M_t⁻¹ h τ_t`), written into `v`; the dense form
    /// writes nothing. `false` when such a solve failed (an M block not positive definite).
    fn start(&mut self, v0: &[f64], h_tau: &[f64], v: &mut [f64]) -> bool;

    /// The free velocity `x = M⁻¹ b` in place (b = p*), for the engine's velocity scale; with
    /// `delassus`, also every contact's normal Delassus diagonal `J_n,i M⁻¹ J_n,iᵀ` (1/kg, NaN where
    /// an M block is not positive definite) from the same factorization (`docs/ipm.md` §11.7).
    /// Invalidates the condensed factorization.
    fn solve_mass_in_place(&mut self, b: &mut [f64], delassus: Option<&mut [f64]>);

    /// Assembles and factors `H = M + reg·I + Σᵢ Jᵢᵀ Dᵢ Jᵢ` with `d` = 3×3 column-major `Dᵢ` per
    /// contact (`9i..9i + 9`, rows and columns normal, tangent 1, tangent 2; only the (0, 0)
    /// entry for impact contacts).
    fn factor_condensed(&mut self, reg: f64, models: &[ContactModel], d: &[f64]);

    /// Solves `H x = b` in place with the last [`Form::factor_condensed`]. The block form leaves
    /// its directly solved velocities (see [`Form::start`]) at 0: their Newton step is 0.
    fn solve_condensed(&mut self, b: &mut [f64]);

    /// For the velocities the form solves directly (see [`Form::start`]): `x_t = M_t⁻¹ b_t`,
    /// with `b` overwritten; the other entries of `x` are left as they are. `solve_condensed`
    /// leaves those entries at 0, which is right for a Newton step but not for a sensitivity
    /// column. The dense form has none.
    fn solve_direct(&mut self, b: &mut [f64], x: &mut [f64]);

    /// Dense M and the packed `Jᵀ` (n×3nc, column-major: normal, t1, t2 per contact) for the
    /// full Newton matrix (`NewtonSolve::Dense`); `None` for a form without them.
    fn dense_parts(&self) -> Option<(DMatrixView<'_, f64>, &[f64])>;

    /// The Delassus form's `W` blocks (its `M` is the identity and `J_i` picks the entries
    /// `3i..3i + 3` of `v`, so the exact candidates eliminate `v`, `solver/exact.rs`); `None` for
    /// the velocity forms.
    fn delassus_blocks(&self) -> Option<DelassusBlocks<'_>> {
        None
    }
}

/// Workspace of the dense form.
#[derive(Debug, Clone, Default)]
pub(crate) struct DenseWorkspace {
    /// `Jᵀ`, column-major n×3nc (normal, t1, t2 column per contact).
    pub jtr: Vec<f64>,
    pub lu: PartialPivLu,
    tmp: Vec<f64>,
    /// Scratch of the Delassus diagonals (n).
    col: Vec<f64>,
}

impl DenseWorkspace {
    /// Grows the storage for `n` velocities and `nc` contacts (condensed matrix n×n).
    pub fn reserve(&mut self, n: usize, nc: usize) {
        grow(&mut self.jtr, 3 * nc * n);
        grow(&mut self.tmp, n);
        grow(&mut self.col, n);
        self.lu.reserve(n);
    }
}

/// The dense form: M (n×n), J_n (nc×n), J_t (2nc×n) as column-major views; `Jᵀ` copied once per
/// solve into columns so that every contact's rows are contiguous.
pub(crate) struct DenseForm<'w, 'a> {
    ws: &'w mut DenseWorkspace,
    m: DMatrixView<'a, f64>,
    nc: usize,
}

impl<'w, 'a> DenseForm<'w, 'a> {
    /// Copies the rows of `jn`, `jt` into the workspace's `Jᵀ` columns.
    pub fn new(
        ws: &'w mut DenseWorkspace,
        m: DMatrixView<'a, f64>,
        jn: DMatrixView<'a, f64>,
        jt: DMatrixView<'a, f64>,
    ) -> Self {
        let (n, nc) = (m.nrows(), jn.nrows());
        ws.reserve(n, nc);
        for i in 0..nc {
            let rows = [jn.row(i), jt.row(2 * i), jt.row(2 * i + 1)];
            for (a, row) in rows.iter().enumerate() {
                let col = &mut ws.jtr[(3 * i + a) * n..(3 * i + a + 1) * n];
                for (dst, &x) in col.iter_mut().zip(row.iter()) {
                    *dst = x;
                }
            }
        }
        Self { ws, m, nc }
    }

    #[inline]
    fn column(&self, i: usize, a: usize) -> &[f64] {
        let n = self.m.nrows();
        &self.ws.jtr[(3 * i + a) * n..(3 * i + a + 1) * n]
    }
}

impl Form for DenseForm<'_, '_> {
    #[inline]
    fn contact_velocity(&self, i: usize, dirs: usize, v: &[f64]) -> [f64; 3] {
        let mut u = [0.0; 3];
        for (a, ua) in u.iter_mut().enumerate().take(dirs) {
            *ua = self.column(i, a).iter().zip(v).map(|(c, x)| c * x).sum();
        }
        u
    }

    #[inline]
    fn sub_contact_impulse(&self, i: usize, dirs: usize, b: &[f64; 3], out: &mut [f64]) {
        for (a, &ba) in b.iter().enumerate().take(dirs) {
            if ba != 0.0 {
                for (x, &c) in out.iter_mut().zip(self.column(i, a)) {
                    *x -= c * ba;
                }
            }
        }
    }

    fn add_mass_product(&self, x: &[f64], out: &mut [f64]) {
        for (c, &d) in x.iter().enumerate() {
            if d != 0.0 {
                for (o, &m) in out.iter_mut().zip(self.m.column(c).iter()) {
                    *o += m * d;
                }
            }
        }
    }

    fn mass_diagonal_max(&self) -> f64 {
        (0..self.m.nrows()).fold(0.0f64, |a, j| a.max(self.m[(j, j)].abs()))
    }

    fn start(&mut self, _v0: &[f64], _h_tau: &[f64], _v: &mut [f64]) -> bool {
        true
    }

    fn solve_mass_in_place(&mut self, b: &mut [f64], delassus: Option<&mut [f64]>) {
        let n = self.m.nrows();
        self.ws.lu.padded_matrix_mut(n).copy_from(&self.m);
        self.ws.lu.factor();
        self.ws.lu.solve_in_place(b, &mut self.ws.tmp[..n]);
        if let Some(w) = delassus {
            let ws = &mut *self.ws;
            dense_normal_delassus(&ws.lu, &ws.jtr, n, &mut ws.col, &mut ws.tmp, &mut w[..self.nc]);
        }
    }

    fn factor_condensed(&mut self, reg: f64, models: &[ContactModel], d: &[f64]) {
        let n = self.m.nrows();
        let ws = &mut *self.ws;
        let jtr = &ws.jtr;
        // The LU's padded layout: no repacking before the factorization (issue 30 item 5).
        let mut hm = ws.lu.padded_matrix_mut(n);
        hm.copy_from(&self.m);
        for j in 0..n {
            hm[(j, j)] += reg;
        }
        for (i, &model) in models.iter().enumerate() {
            let di = &d[9 * i..9 * i + 9];
            let c0 = &jtr[3 * i * n..(3 * i + 1) * n];
            if model == ContactModel::Impact {
                let d00 = di[0];
                for (c, &jc) in c0.iter().enumerate() {
                    if jc == 0.0 {
                        continue;
                    }
                    let mut colv = hm.column_mut(c);
                    let col = colv.as_mut_slice();
                    let p = d00 * jc;
                    for (x, &a) in col.iter_mut().zip(c0) {
                        *x += a * p;
                    }
                }
                continue;
            }
            let c1 = &jtr[(3 * i + 1) * n..(3 * i + 2) * n];
            let c2 = &jtr[(3 * i + 2) * n..(3 * i + 3) * n];
            for c in 0..n {
                let (j0, j1, j2) = (c0[c], c1[c], c2[c]);
                // Contact Jacobians of articulated bodies are sparse: skip the columns this
                // contact does not touch (the update is then O(n·nnz) instead of O(n²)).
                if j0 == 0.0 && j1 == 0.0 && j2 == 0.0 {
                    continue;
                }
                let mut colv = hm.column_mut(c);
                let col = colv.as_mut_slice();
                let p0 = di[0] * j0 + di[3] * j1 + di[6] * j2;
                let p1 = di[1] * j0 + di[4] * j1 + di[7] * j2;
                let p2 = di[2] * j0 + di[5] * j1 + di[8] * j2;
                for (((x, &a0), &a1), &a2) in col.iter_mut().zip(c0).zip(c1).zip(c2) {
                    *x += a0 * p0 + a1 * p1 + a2 * p2;
                }
            }
        }
        ws.lu.factor();
    }

    fn solve_direct(&mut self, _b: &mut [f64], _x: &mut [f64]) {}

    fn solve_condensed(&mut self, b: &mut [f64]) {
        let n = self.m.nrows();
        self.ws.lu.solve_in_place(b, &mut self.ws.tmp[..n]);
    }

    fn dense_parts(&self) -> Option<(DMatrixView<'_, f64>, &[f64])> {
        Some((self.m, &self.ws.jtr[..3 * self.nc * self.m.nrows()]))
    }
}

/// The per-contact and per-tree passes of one block solve cut for the participants of a pool
/// (`docs/performance.md` §8): contacts in consecutive ranges (each contact's values are its
/// own), trees in consecutive ranges, each tree summing the terms of the contacts that touch it
/// in increasing contact order, as the sequential sum over contacts does entry by entry. So
/// every value gets the operations of the sequential pass in the same order: the same bits.
#[derive(Clone, Copy)]
pub(crate) struct Split<'s> {
    pool: &'s WorkerPool,
    work: &'s WorkSplit,
    rows: &'s ContactRows,
    system: &'s BlockSparseSystem<'s>,
}

impl Split<'_> {
    /// Number of parts (2 per thread, claimed by whichever thread runs).
    #[inline(always)]
    pub fn parts(&self) -> usize {
        self.work.parts()
    }

    /// Part p's contacts are `contacts()[p]..contacts()[p + 1]`.
    #[inline(always)]
    pub fn contacts(&self) -> &[usize] {
        self.work.contact_bounds()
    }

    /// Part p's trees are `trees()[p]..trees()[p + 1]`, their dofs `dofs()[p]..dofs()[p + 1]`.
    #[inline(always)]
    pub fn trees(&self) -> &[usize] {
        self.work.tree_bounds()
    }

    #[inline(always)]
    pub fn dofs(&self) -> &[usize] {
        self.work.dof_bounds()
    }

    /// Tree t's dofs.
    #[inline(always)]
    pub fn tree_range(&self, t: usize) -> std::ops::Range<usize> {
        self.system.layout().tree_range(t)
    }

    /// Calls `f(p)` for every part on the pool's participants, each inside the SIMD dispatch
    /// (give an `#[inline(always)]` closure: only then is it compiled into the dispatched
    /// function, where `f64::mul_add` is one instruction; `docs/performance.md` §3).
    #[inline(always)]
    pub fn run(&self, f: impl Fn(usize) + Sync) {
        self.pool.run(self.parts(), &|p| {
            dispatch_fn(
                #[inline(always)]
                || f(p),
            )
        });
    }

    /// `out += M_t x` for tree t (`x`, `out`: the tree's entries), the operations of
    /// [`Form::add_mass_product`].
    #[inline(always)]
    pub fn add_tree_mass_product(&self, t: usize, x: &[f64], out: &mut [f64]) {
        tree_mass_product(self.system, t, x, out);
    }

    /// `out += Σ J_iᵀ f(i)` over tree t's contacts in increasing order (`out`: the tree's
    /// entries); `f(i) = None` skips contact i. Entry by entry the operations of
    /// [`Form::sub_contact_impulse`] called contact after contact with `b = −f(i)`.
    #[inline(always)]
    pub fn add_tree_forces(&self, t: usize, f: impl Fn(usize) -> Option<[f64; 3]>, out: &mut [f64]) {
        for (i, slot) in self.work.tree_contacts(t) {
            if let Some(f) = f(i) {
                self.rows.add_force_block(self.system, i, slot, f, out);
            }
        }
    }
}

/// What the parallel passes of a solve keep besides the form's split (`docs/performance.md` §8):
/// the index `0..=parts` and one slot of partial results per part, which the caller combines in
/// part order.
#[derive(Debug, Clone, Default)]
pub(crate) struct PartScratch {
    pub(crate) index: Vec<usize>,
    pub(crate) partials: Vec<[f64; 8]>,
}

impl PartScratch {
    /// One slot of partial results per part (`parts` of them), each taken once by its part.
    pub(crate) fn slots(&mut self, parts: usize) -> Parts<'_, [f64; 8]> {
        Parts::new(&mut self.partials[..parts], &self.index[..parts + 1], 1)
    }
}

/// `out += M_t x` for tree t (`x`, `out`: the tree's entries), M_t read as raw columns (not
/// through a matrix view: issue 29).
#[inline(always)]
fn tree_mass_product(system: &BlockSparseSystem<'_>, t: usize, x: &[f64], out: &mut [f64]) {
    let nt = out.len();
    let m = system.m_values(t);
    if let (Ok(m), Ok(x), Ok(out)) = (
        <&[f64; 36]>::try_from(&m[..nt * nt]),
        <&[f64; 6]>::try_from(x),
        <&mut [f64; 6]>::try_from(&mut *out),
    ) {
        // A free body: fixed lengths, the same operations unrolled (issue 29).
        for (c, &d) in x.iter().enumerate() {
            if d != 0.0 {
                for (o, &a) in out.iter_mut().zip(&m[c * 6..(c + 1) * 6]) {
                    *o += a * d;
                }
            }
        }
        return;
    }
    for (c, &d) in x.iter().enumerate() {
        if d != 0.0 {
            for (o, &a) in out.iter_mut().zip(&m[c * nt..(c + 1) * nt]) {
                *o += a * d;
            }
        }
    }
}

/// Workspace of the block form.
#[derive(Debug, Clone, Default)]
pub(crate) struct BlockWorkspace {
    pub newton: BlockNewtonMatrix,
    /// The contacts and trees cut for the pool's participants, and whether this solve's
    /// per-contact and per-tree passes run on the pool.
    split: WorkSplit,
    split_contacts: bool,
    /// One tree's M block at a time, for the free velocity.
    tree: Ldlt,
    /// The contacts of every tree, for the Delassus diagonals (`docs/ipm.md` §11.7).
    tree_contacts: TreeContacts,
}

/// The block-sparse form (`docs/block_sparse.md`): M by trees, J by contacts and trees, the
/// condensed Newton matrix by islands ([`BlockNewtonMatrix`]). Trees that no contact touches are
/// solved once, exactly, by [`Form::start`] and take no part in the iteration.
///
/// With a `pool` (`IpmParameters::num_threads` ≥ 2) the islands' condensed matrices are assembled,
/// factored and solved on its participants, each island with the operations of the sequential
/// solve, so the bits are the same (`docs/performance.md` §8).
pub(crate) struct BlockForm<'w, 'a> {
    ws: &'w mut BlockWorkspace,
    system: BlockSparseSystem<'a>,
    pool: Option<&'w WorkerPool>,
}

impl<'w, 'a> BlockForm<'w, 'a> {
    /// Finds the islands of `system` and grows the storage for them (fallibly), for parallel
    /// island phases too when there is a `pool`.
    pub fn new(
        ws: &'w mut BlockWorkspace,
        system: BlockSparseSystem<'a>,
        pool: Option<&'w WorkerPool>,
    ) -> Result<Self, IpmError> {
        ws.newton.prepare(&system, Factorization::Lu)?;
        ws.split_contacts = false;
        if let Some(pool) = pool {
            let chunks = chunk_count(pool.threads());
            ws.newton.prepare_parallel(&system, chunks)?;
            ws.split_contacts = system.num_contacts() >= MIN_CONTACTS_PER_THREAD * pool.threads();
            if ws.split_contacts {
                ws.split.prepare(&system, chunks)?;
            }
        }
        let layout = system.layout();
        let largest = (0..layout.num_trees()).map(|t| layout.tree_dofs(t)).max().unwrap_or(0);
        ws.tree.try_reserve(largest).map_err(|_| {
            IpmError::Blocks(BlockSparseError::Allocation {
                what: "a mass block",
                len: largest.saturating_mul(largest),
            })
        })?;
        Ok(Self { ws, system, pool })
    }
}

impl Form for BlockForm<'_, '_> {
    #[inline(always)]
    fn split(&self) -> Option<Split<'_>> {
        let pool = self.pool.filter(|_| self.ws.split_contacts)?;
        Some(Split { pool, work: &self.ws.split, rows: self.ws.newton.rows(), system: &self.system })
    }

    // The per-contact kernels use `f64::mul_add`: every caller runs inside the solver's SIMD
    // dispatch (`solver.rs`, `simd::dispatch_fn` around `run`), where it is one instruction; outside it would be a
    // call to libm's `fma` (same bits either way; issue 29 profile).
    #[inline(always)]
    fn contact_velocity(&self, i: usize, dirs: usize, v: &[f64]) -> [f64; 3] {
        let mut u = self.ws.newton.rows().velocity(&self.system, i, v);
        u[dirs..].fill(0.0);
        u
    }

    #[inline(always)]
    fn sub_contact_impulse(&self, i: usize, dirs: usize, b: &[f64; 3], out: &mut [f64]) {
        let mut f = [-b[0], -b[1], -b[2]];
        f[dirs..].fill(0.0);
        self.ws.newton.rows().add_force(&self.system, i, f, out);
    }

    #[inline(always)]
    fn add_mass_product(&self, x: &[f64], out: &mut [f64]) {
        let layout = self.system.layout();
        for t in 0..layout.num_trees() {
            let r = layout.tree_range(t);
            tree_mass_product(&self.system, t, &x[r.clone()], &mut out[r]);
        }
    }

    fn mass_diagonal_max(&self) -> f64 {
        let layout = self.system.layout();
        (0..layout.num_trees())
            .map(|t| {
                let m = self.system.m_block(t);
                (0..m.nrows()).fold(0.0f64, |a, j| a.max(m[(j, j)].abs()))
            })
            .fold(0.0, f64::max)
    }

    fn start(&mut self, v0: &[f64], h_tau: &[f64], v: &mut [f64]) -> bool {
        let layout = self.system.layout();
        for &t in self.ws.newton.islands().free_trees() {
            let r = layout.tree_range(t as usize);
            v[r.clone()].copy_from_slice(&h_tau[r]);
        }
        let ok = self.ws.newton.solve_free_trees(&self.system, v);
        for &t in self.ws.newton.islands().free_trees() {
            let r = layout.tree_range(t as usize);
            for (x, &x0) in v[r.clone()].iter_mut().zip(&v0[r]) {
                *x += x0;
            }
        }
        ok
    }

    fn solve_mass_in_place(&mut self, b: &mut [f64], mut delassus: Option<&mut [f64]>) {
        let layout = self.system.layout();
        if let Some(w) = delassus.as_deref_mut() {
            self.ws.tree_contacts.build(&self.system);
            w[..layout.num_contacts()].fill(0.0);
        }
        for t in 0..layout.num_trees() {
            let n = layout.tree_dofs(t);
            self.ws.tree.matrix_mut(n).copy_from(&self.system.m_block(t));
            let bt = &mut b[layout.tree_range(t)];
            let ok = self.ws.tree.factor().is_ok();
            if ok {
                self.ws.tree.solve_in_place(bt);
            } else {
                // M_t is not positive definite: no free velocity (the caller skips non-finite
                // values, as the dense LU's for a singular M).
                bt.fill(f64::NAN);
            }
            if let Some(w) = delassus.as_deref_mut() {
                self.ws.tree_contacts.add_tree(&self.system, t, &self.ws.tree, ok, w);
            }
        }
    }

    fn factor_condensed(&mut self, reg: f64, _models: &[ContactModel], d: &[f64]) {
        // Inside the SIMD dispatch: the assembly's kernels are `#[inline(always)]` and use
        // `f64::mul_add`, one instruction there and a library call in the baseline build (same
        // bits either way: both are the correctly rounded FMA).
        struct Factor<'a, 'b, 's> {
            newton: &'a mut BlockNewtonMatrix,
            system: &'b BlockSparseSystem<'s>,
            pool: Option<&'b WorkerPool>,
            reg: f64,
            d: &'b [f64],
        }
        impl WithSimd for Factor<'_, '_, '_> {
            type Output = ();
            #[inline(always)]
            fn with_simd<S: Simd>(self, _simd: S) {
                let d = self.d;
                let weight = |i: usize| {
                    let di = &d[9 * i..9 * i + 9];
                    [[di[0], di[3], di[6]], [di[1], di[4], di[7]], [di[2], di[5], di[8]]]
                };
                // LU never reports failure (as the dense form's).
                let lu = Factorization::Lu;
                self.newton.assemble_shifted_and_factor_on(self.pool, self.system, 1.0, self.reg, lu, weight);
            }
        }
        simd::dispatch(Factor { newton: &mut self.ws.newton, system: &self.system, pool: self.pool, reg, d });
    }

    fn solve_condensed(&mut self, b: &mut [f64]) {
        struct Solve<'a, 'b, 's> {
            newton: &'a mut BlockNewtonMatrix,
            system: &'b BlockSparseSystem<'s>,
            pool: Option<&'b WorkerPool>,
            b: &'b mut [f64],
        }
        impl WithSimd for Solve<'_, '_, '_> {
            type Output = ();
            #[inline(always)]
            fn with_simd<S: Simd>(self, _simd: S) {
                self.newton.solve_in_place_on(self.pool, self.system, self.b);
            }
        }
        simd::dispatch(Solve { newton: &mut self.ws.newton, system: &self.system, pool: self.pool, b });
    }

    fn solve_direct(&mut self, b: &mut [f64], x: &mut [f64]) {
        // A failed M_t factorization was reported by `start` already.
        let _ = self.ws.newton.solve_free_trees(&self.system, b);
        let layout = self.system.layout();
        for &t in self.ws.newton.islands().free_trees() {
            let r = layout.tree_range(t as usize);
            x[r.clone()].copy_from_slice(&b[r]);
        }
    }

    fn dense_parts(&self) -> Option<(DMatrixView<'_, f64>, &[f64])> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block_sparse::BlockSparseLayout;

    /// The per-contact and per-tree passes go to the pool from `MIN_CONTACTS_PER_THREAD`
    /// contacts per thread on, with parts that cover every contact, tree and dof once.
    #[test]
    fn passes_split_from_the_threshold_on() {
        let pool = WorkerPool::new(2).unwrap();
        for (nc, splits) in [(2 * MIN_CONTACTS_PER_THREAD - 1, false), (2 * MIN_CONTACTS_PER_THREAD, true)] {
            let ntree = 40;
            let dofs = vec![6; ntree];
            let contacts: Vec<(usize, Option<usize>)> =
                (0..nc).map(|i| (i % ntree, (i % 3 != 0).then_some((i * 7 + 1) % ntree))).collect();
            let contacts: Vec<_> = contacts.into_iter().map(|(a, b)| (a, b.filter(|&b| b != a))).collect();
            let mut layout = BlockSparseLayout::new();
            layout.set(&dofs, &contacts).unwrap();
            let m: Vec<f64> =
                (0..ntree).flat_map(|_| (0..36).map(|k| if k % 7 == 0 { 1.0 } else { 0.0 })).collect();
            let j = vec![0.5; layout.j_len()];
            let system = BlockSparseSystem::new(&layout, &m, &j).unwrap();
            let mut ws = BlockWorkspace::default();
            let form = BlockForm::new(&mut ws, system, Some(&pool)).unwrap();
            assert_eq!(form.split().is_some(), splits, "{nc} contacts");
            if let Some(sp) = form.split() {
                assert_eq!(sp.parts(), chunk_count(2));
                assert_eq!((sp.contacts()[0], sp.contacts()[sp.parts()]), (0, nc));
                assert_eq!((sp.trees()[0], sp.trees()[sp.parts()]), (0, ntree));
                assert_eq!((sp.dofs()[0], sp.dofs()[sp.parts()]), (0, 6 * ntree));
            }
            let sequential = BlockForm::new(&mut ws, system, None).unwrap();
            assert!(sequential.split().is_none());
        }
    }
}
