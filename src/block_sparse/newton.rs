//! Newton matrices `M + s·Σᵢ Jᵢᵀ Wᵢ Jᵢ` of a block-sparse system, island by island
//! (`docs/block_sparse.md` §3).

use nalgebra::DMatrixViewMut;

use super::{BlockSparseError, BlockSparseSystem, Islands, try_grow};
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
    /// An island's right-hand side in local numbering; permutation scratch of the LU solve.
    local: Vec<f64>,
    tmp: Vec<f64>,
    /// `W_i·G_q` (3 rows) for one tree block of a contact.
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

    /// Assembles `M + scale·Σᵢ Jᵢᵀ Wᵢ Jᵢ` island by island into the storage of the `kind`
    /// factorizations, with `weight(i)` contact i's `Wᵢ` (row-major 3×3 in the order normal,
    /// tangent 1, tangent 2). [`factor`](Self::factor) then factors it.
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
                let blocks = system.j_blocks(i);
                for (q, gq) in blocks.into_iter().flatten() {
                    // wg = scale·W·G_q (3×n_q, column-major).
                    let nq = gq.len() / 3;
                    let wg = &mut self.wg[..3 * nq];
                    for (col, out) in gq.chunks_exact(3).zip(wg.chunks_exact_mut(3)) {
                        for (r, o) in out.iter_mut().enumerate() {
                            *o = scale * (w[r][0] * col[0] + w[r][1] * col[1] + w[r][2] * col[2]);
                        }
                    }
                    let q_off = self.islands.local_offset(q);
                    for (p, gp) in blocks.into_iter().flatten() {
                        // A[p, q] += G_pᵀ (scale·W·G_q).
                        let p_off = self.islands.local_offset(p);
                        for (c, x) in wg.chunks_exact(3).enumerate() {
                            let col = &mut a[(q_off + c) * n + p_off..];
                            for (out, g) in col.iter_mut().zip(gp.chunks_exact(3)) {
                                *out += g[0] * x[0] + g[1] * x[1] + g[2] * x[2];
                            }
                        }
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
