//! Newton matrices `M + s·Σᵢ Jᵢᵀ Wᵢ Jᵢ` of a block-sparse system, island by island
//! (`docs/block_sparse.md` §3).

use nalgebra::DMatrixViewMut;

use super::{BlockSparseError, BlockSparseSystem, ContactRows, Islands, Rows, try_grow};
use crate::linalg::{Ldlt, PartialPivLu};

/// Which factorization the Newton matrices get.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Factorization {
    /// Partial-pivot LU (any square matrix; never reports failure, like the dense TAMSI path).
    Lu,
    /// Eigen-compatible LDLᵀ (symmetric; reads the lower triangle; reports failure).
    Ldlt,
}

/// A factorization of one island's Newton matrix.
#[derive(Debug, Clone, Default)]
struct IslandFactor {
    lu: PartialPivLu,
    ldlt: Ldlt,
}

/// The Newton matrix `A = M + s·Σᵢ Jᵢᵀ Wᵢ Jᵢ` of a [`BlockSparseSystem`], block diagonal by
/// islands (`docs/block_sparse.md` §3): each island's block is assembled from its trees' M blocks
/// and its contacts' Jacobian blocks, factored on its own and solved on its own. `Wᵢ` is a 3×3
/// weight per contact in the Jacobian's row order (normal, tangent 1, tangent 2); `s` a scale
/// (TAMSI's time step).
///
/// Trees that no contact touches have `A_t = M_t`: [`solve_free_trees`](Self::solve_free_trees)
/// solves `M_t x_t = b_t` for them, and [`solve_in_place`](Self::solve_in_place) leaves their
/// entries at zero (their Newton step is zero once they are solved).
///
/// Storage grows to the largest islands seen and is kept: repeated solves of a problem no larger
/// than one seen before allocate nothing.
#[derive(Debug, Clone, Default)]
pub struct BlockNewtonMatrix {
    islands: Islands,
    factors: Vec<IslandFactor>,
    /// Which factorization the islands hold.
    kind: Option<Factorization>,
    /// One free tree's factorization at a time.
    free: Ldlt,
    /// The contacts' Jacobian blocks, transposed for the kernels.
    rows: ContactRows,
    /// An island's right-hand side in local numbering; permutation scratch of the LU solve.
    local: Vec<f64>,
    tmp: Vec<f64>,
    /// `scale·W_i·G_q` for one tree block of a contact: three rows of n_q values.
    wg: Vec<f64>,
}

impl BlockNewtonMatrix {
    /// An empty matrix.
    pub fn new() -> Self {
        Self::default()
    }

    /// Finds the islands of `system` and makes room for their factorizations of `kind`. Call once
    /// per solve, before [`assemble_and_factor`](Self::assemble_and_factor).
    pub fn prepare(
        &mut self,
        system: &BlockSparseSystem<'_>,
        kind: Factorization,
    ) -> Result<(), BlockSparseError> {
        let layout = system.layout();
        self.islands.partition(layout)?;
        self.rows.prepare(system)?;
        let count = self.islands.count();
        if self.factors.len() < count {
            self.factors
                .try_reserve(count - self.factors.len())
                .map_err(|_| BlockSparseError::Allocation { what: "island factorizations", len: count })?;
            self.factors.resize_with(count, IslandFactor::default);
        }
        let largest_island = (0..count).map(|k| self.islands.dofs(k)).max().unwrap_or(0);
        let largest_tree = (0..layout.num_trees()).map(|t| layout.tree_dofs(t)).max().unwrap_or(0);
        let n = largest_island.max(largest_tree);
        try_grow(&mut self.local, n, 0.0, "island right-hand side")?;
        try_grow(&mut self.tmp, n, 0.0, "island right-hand side")?;
        try_grow(&mut self.wg, 3 * largest_tree, 0.0, "contact weights")?;
        let failed = |len| BlockSparseError::Allocation { what: "a Newton matrix", len };
        self.free.try_reserve(largest_tree).map_err(|_| failed(largest_tree.saturating_mul(largest_tree)))?;
        // A dense island factorization holds n² values: grow them here, fallibly, never in a solve.
        for k in 0..count {
            let d = self.islands.dofs(k);
            let f = &mut self.factors[k];
            match kind {
                Factorization::Lu => f.lu.try_reserve(d),
                Factorization::Ldlt => f.ldlt.try_reserve(d),
            }
            .map_err(|_| failed(d.saturating_mul(d)))?;
        }
        self.kind = None;
        Ok(())
    }

    /// The islands found by the last [`prepare`](Self::prepare).
    pub fn islands(&self) -> &Islands {
        &self.islands
    }

    /// The transposed Jacobian blocks of the system last prepared, for the products `J v` and
    /// `Jᵀ f`.
    pub fn rows(&self) -> &ContactRows {
        &self.rows
    }

    /// Assembles `M + scale·Σᵢ Jᵢᵀ Wᵢ Jᵢ` island by island into the storage of the `kind`
    /// factorizations, with `weight(i)` contact i's `Wᵢ` (row-major 3×3 in the order normal,
    /// tangent 1, tangent 2). [`factor`](Self::factor) then factors it.
    #[inline(always)]
    pub fn assemble(
        &mut self,
        system: &BlockSparseSystem<'_>,
        scale: f64,
        kind: Factorization,
        weight: impl Fn(usize) -> [[f64; 3]; 3],
    ) {
        let layout = system.layout();
        for k in 0..self.islands.count() {
            let n = self.islands.dofs(k);
            let f = &mut self.factors[k];
            let a = match kind {
                Factorization::Lu => f.lu.storage_mut(n),
                Factorization::Ldlt => f.ldlt.storage_mut(n),
            };
            a.fill(0.0);
            for &t in self.islands.trees(k) {
                let t = t as usize;
                let (off, nt) = (self.islands.local_offset(t), layout.tree_dofs(t));
                let m = system.m_block(t);
                for c in 0..nt {
                    a[(off + c) * n + off..(off + c) * n + off + nt].copy_from_slice(m.column(c).as_slice());
                }
            }
            for &i in self.islands.contacts(k) {
                let i = i as usize;
                let w = weight(i);
                let blocks = self.rows.blocks(system, i);
                for (q, gq) in blocks.into_iter().flatten() {
                    // Y = scale·W·G_q, three rows of n_q values.
                    let nq = gq.len();
                    let (y0, rest) = self.wg[..3 * nq].split_at_mut(nq);
                    let (y1, y2) = rest.split_at_mut(nq);
                    for c in 0..nq {
                        let g = [gq.n[c], gq.t1[c], gq.t2[c]];
                        let row = |k: usize| scale * (w[k][0] * g[0] + w[k][1] * g[1] + w[k][2] * g[2]);
                        (y0[c], y1[c], y2[c]) = (row(0), row(1), row(2));
                    }
                    let q_off = self.islands.local_offset(q);
                    for (p, gp) in blocks.into_iter().flatten() {
                        let p_off = self.islands.local_offset(p);
                        add_block(&mut a[q_off * n + p_off..], n, gp, [y0, y1, y2]);
                    }
                }
            }
        }
        self.kind = Some(kind);
    }

    /// Factors every island's assembled matrix. Returns `false` when some island's LDLᵀ failed
    /// (its factors are still usable, as the dense path's are); LU never reports failure.
    pub fn factor(&mut self) -> bool {
        let kind = self.kind.expect("BlockNewtonMatrix::factor before assemble");
        let mut ok = true;
        for f in &mut self.factors[..self.islands.count()] {
            match kind {
                Factorization::Lu => f.lu.factor(),
                Factorization::Ldlt => ok &= f.ldlt.factor().is_ok(),
            }
        }
        ok
    }

    /// Writes the assembled (not yet factored) matrix into `out` (nv×nv, dense): the islands'
    /// blocks, the free trees' M blocks, zeros elsewhere. For checks and debugging.
    pub fn write_dense(&self, system: &BlockSparseSystem<'_>, out: &mut DMatrixViewMut<'_, f64>) {
        let layout = system.layout();
        let kind = self.kind.expect("BlockNewtonMatrix::write_dense before assemble");
        out.fill(0.0);
        for k in 0..self.islands.count() {
            let n = self.islands.dofs(k);
            let f = &self.factors[k];
            let a = match kind {
                Factorization::Lu => f.lu.storage(),
                Factorization::Ldlt => f.ldlt.storage(),
            };
            for &tq in self.islands.trees(k) {
                for &tp in self.islands.trees(k) {
                    let (rq, rp) = (layout.tree_range(tq as usize), layout.tree_range(tp as usize));
                    let (oq, op) =
                        (self.islands.local_offset(tq as usize), self.islands.local_offset(tp as usize));
                    for c in 0..rq.len() {
                        for r in 0..rp.len() {
                            out[(rp.start + r, rq.start + c)] = a[(oq + c) * n + op + r];
                        }
                    }
                }
            }
        }
        for &t in self.islands.free_trees() {
            let r = layout.tree_range(t as usize);
            out.view_mut((r.start, r.start), (r.len(), r.len())).copy_from(&system.m_block(t as usize));
        }
    }

    /// Solves `A x = b` in place on the islands' dofs with the factors of the last
    /// [`assemble_and_factor`](Self::assemble_and_factor); the entries of free trees are set to 0.
    /// `b` has nv entries.
    #[inline(always)]
    pub fn solve_in_place(&mut self, system: &BlockSparseSystem<'_>, b: &mut [f64]) {
        let layout = system.layout();
        let kind = self.kind.expect("BlockNewtonMatrix::solve_in_place before assemble_and_factor");
        for k in 0..self.islands.count() {
            let n = self.islands.dofs(k);
            let local = &mut self.local[..n];
            for &t in self.islands.trees(k) {
                let t = t as usize;
                let off = self.islands.local_offset(t);
                let r = layout.tree_range(t);
                local[off..off + r.len()].copy_from_slice(&b[r]);
            }
            let f = &self.factors[k];
            match kind {
                Factorization::Lu => f.lu.solve_in_place(local, &mut self.tmp[..n]),
                Factorization::Ldlt => f.ldlt.solve_in_place(local),
            }
            for &t in self.islands.trees(k) {
                let t = t as usize;
                let off = self.islands.local_offset(t);
                let r = layout.tree_range(t);
                let len = r.len();
                b[r].copy_from_slice(&local[off..off + len]);
            }
        }
        for &t in self.islands.free_trees() {
            b[layout.tree_range(t as usize)].fill(0.0);
        }
    }

    /// Solves `M_t x_t = b_t` in place for every free tree t (Eigen-compatible LDLᵀ of its M
    /// block, as the dense path's no-contact solve); other entries of `b` are left as they are.
    /// Returns `false` when some free tree's M block could not be factored.
    pub fn solve_free_trees(&mut self, system: &BlockSparseSystem<'_>, b: &mut [f64]) -> bool {
        let layout = system.layout();
        let mut ok = true;
        for &t in self.islands.free_trees() {
            let t = t as usize;
            let n = layout.tree_dofs(t);
            self.free.matrix_mut(n).copy_from(&system.m_block(t));
            ok &= self.free.factor().is_ok();
            self.free.solve_in_place(&mut b[layout.tree_range(t)]);
        }
        ok
    }
}

/// `A[p, q] += G_pᵀ Y` for the block whose top-left entry is `a[0]` (leading dimension `n`):
/// column c gets `Y[0][c]·g_n + Y[1][c]·g_t1 + Y[2][c]·g_t2` over the contiguous rows of `G_pᵀ`.
/// Free bodies (6 dofs) take a path with fixed-length rows held in registers.
#[inline(always)]
fn add_block(a: &mut [f64], n: usize, gp: Rows<'_>, y: [&mut [f64]; 3]) {
    let nq = y[0].len();
    if let Some([g0, g1, g2]) = gp.fixed::<6>() {
        for c in 0..nq {
            let col: &mut [f64; 6] = (&mut a[c * n..c * n + 6]).try_into().unwrap();
            let (a0, a1, a2) = (y[0][c], y[1][c], y[2][c]);
            for r in 0..6 {
                col[r] = g2[r].mul_add(a2, g1[r].mul_add(a1, g0[r].mul_add(a0, col[r])));
            }
        }
        return;
    }
    let np = gp.len();
    for c in 0..nq {
        let col = &mut a[c * n..c * n + np];
        let (a0, a1, a2) = (y[0][c], y[1][c], y[2][c]);
        for (((o, &g0), &g1), &g2) in col.iter_mut().zip(gp.n).zip(gp.t1).zip(gp.t2) {
            *o = g2.mul_add(a2, g1.mul_add(a1, g0.mul_add(a0, *o)));
        }
    }
}
