//! The contacts' Jacobian blocks transposed, for the per-iteration kernels
//! (`docs/block_sparse.md` §3).

use super::{BlockSparseError, BlockSparseSystem, try_grow};

/// A per-solve copy of every contact's Jacobian blocks with each block transposed: the caller's
/// block `G_{i,t}` (3×n_t, column-major, so one contact row's entries are 3 apart) is stored as
/// `G_{i,t}ᵀ` (n_t×3, column-major): three contiguous rows (normal, tangent 1, tangent 2) of n_t
/// values. At the same offsets as the packed J. The kernels that run every iteration on rows —
/// forces `J_iᵀ f` and the Newton-matrix updates — then work on contiguous rows, which the
/// compiler vectorizes. Contact velocities `J_i v` read the caller's packed J itself, whose
/// columns (normal, tangent 1, tangent 2) are the lanes of one vector: one copy of the blocks
/// per solve, not two (`docs/performance.md` §3 "The live loop, evening pass").
///
/// The kernels are `#[inline(always)]` so that they compile inside the caller's SIMD dispatch
/// (`crate::linalg::simd`), where `f64::mul_add` is one fused instruction.
#[derive(Debug, Clone, Default)]
pub struct ContactRows {
    rows: Vec<f64>,
    /// Per contact, where its blocks are: read from the layout so that the per-iteration kernels
    /// look nothing up (issue 29: the layout's lookups cost as much as the arithmetic on 6-dof
    /// trees), and only when the structure changed (`structure`, the layout's
    /// [`BlockSparseLayout::structure_id`](super::BlockSparseLayout::structure_id) they were read
    /// for).
    desc: Vec<ContactDesc>,
    structure: Option<u64>,
}

/// One contact's blocks: offset of its first transposed block in the packed rows, and for each
/// tree it touches the tree's first dof and dof count (`n[1] = 0`: one tree).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ContactDesc {
    pub off: usize,
    pub first: [usize; 2],
    pub n: [usize; 2],
}

impl ContactRows {
    /// Copies and transposes the Jacobian blocks of `system`. Allocates only when the system is
    /// larger than any prepared before. Once per solve: the blocks are read in their packed order,
    /// a free body's 3×6 block with fixed lengths (a warm live-loop step of the 50-box pile spent
    /// 13 % of its instructions here with per-block slices and layout lookups, `docs/performance.md`
    /// §3 "The live loop"); the descriptors are read again only for a new structure.
    pub fn prepare(&mut self, system: &BlockSparseSystem<'_>) -> Result<(), BlockSparseError> {
        let layout = system.layout();
        let (nc, len) = (layout.num_contacts(), layout.j_len());
        try_grow(&mut self.rows, len, 0.0, "transposed Jacobian blocks")?;
        try_grow(&mut self.desc, nc, ContactDesc::default(), "contact descriptors")?;
        if self.structure != Some(layout.structure_id()) {
            for (i, d) in self.desc[..nc].iter_mut().enumerate() {
                let (a, b) = layout.contact_trees(i);
                let ra = layout.tree_range(a);
                let rb = b.map_or(0..0, |b| layout.tree_range(b));
                *d = ContactDesc {
                    off: layout.j_offset(i),
                    first: [ra.start, rb.start],
                    n: [ra.len(), rb.len()],
                };
            }
            self.structure = Some(layout.structure_id());
        }
        // The blocks lie back to back in packed J, in contact order and each contact's tree order;
        // the transposed ones at the same offsets.
        let (j, rows) = (&system.j_values()[..len], &mut self.rows[..len]);
        let mut off = 0;
        for d in &self.desc[..nc] {
            for &n in &d.n {
                let (g, r) = (&j[off..off + 3 * n], &mut rows[off..off + 3 * n]);
                if let (Ok(g), Ok(r)) = (<&[f64; 18]>::try_from(g), <&mut [f64; 18]>::try_from(&mut *r)) {
                    transpose_block::<6, 18>(g, r);
                } else {
                    for (k, col) in g.chunks_exact(3).enumerate() {
                        (r[k], r[n + k], r[2 * n + k]) = (col[0], col[1], col[2]);
                    }
                }
                off += 3 * n;
            }
        }
        Ok(())
    }

    /// Contact i's transposed blocks: for each tree it touches (in its listed order), the tree
    /// and the three rows (normal, tangent 1, tangent 2) over the tree's dofs.
    #[inline(always)]
    pub fn blocks<'s>(&'s self, system: &BlockSparseSystem<'_>, i: usize) -> [Option<(usize, Rows<'s>)>; 2] {
        let (a, b) = system.layout().contact_trees(i);
        let d = &self.desc[i];
        [Some((a, self.rows_at(d.off, d.n[0]))), b.map(|b| (b, self.rows_at(d.off + 3 * d.n[0], d.n[1])))]
    }

    /// Contact i's descriptor (offsets read from the layout at [`prepare`](Self::prepare)).
    #[inline(always)]
    pub(crate) fn desc(&self, i: usize) -> &ContactDesc {
        &self.desc[i]
    }

    /// The three transposed rows of `n` values stored from `off`.
    #[inline(always)]
    pub(crate) fn rows_at(&self, off: usize, n: usize) -> Rows<'_> {
        let r = &self.rows[off..off + 3 * n];
        let (n0, rest) = r.split_at(n);
        let (t1, t2) = rest.split_at(n);
        Rows { n: n0, t1, t2 }
    }

    /// The `len` transposed values stored from `off` (the blocks of consecutive contacts).
    #[inline(always)]
    pub(crate) fn run_rows(&self, off: usize, len: usize) -> &[f64] {
        &self.rows[off..off + len]
    }

    /// Contact i's blocks as (first dof of the tree, rows); the second is `None` for a
    /// one-tree contact.
    #[inline(always)]
    fn dof_blocks(&self, i: usize) -> [Option<(usize, Rows<'_>)>; 2] {
        let d = &self.desc[i];
        let first = Some((d.first[0], self.rows_at(d.off, d.n[0])));
        let second = (d.n[1] > 0).then(|| (d.first[1], self.rows_at(d.off + 3 * d.n[0], d.n[1])));
        [first, second]
    }

    /// Contact i's relative velocity `J_i v` (normal, tangent 1, tangent 2): each row's sum over
    /// the dofs in increasing order, one `mul_add` per term, the three rows side by side in the
    /// lanes of one vector.
    #[inline(always)]
    pub fn velocity(&self, system: &BlockSparseSystem<'_>, i: usize, v: &[f64]) -> [f64; 3] {
        self.velocity_at(system, i, self.desc[i].first, v)
    }

    /// [`velocity`](Self::velocity) with contact i's trees' dofs starting at `first` in `v` (its
    /// listed order; e.g. an island's local numbering); the same operations.
    ///
    /// Reads `system`'s packed J (the caller's blocks, column-major 3×n_t: dof k's column is the
    /// three values from `3k`). Every column but a block's last is loaded as four values, the
    /// fourth the next column's normal entry, into a fourth lane that is never read: the three
    /// rows' sums run side by side in one vector without a padded copy of the blocks.
    #[inline(always)]
    pub fn velocity_at(
        &self,
        system: &BlockSparseSystem<'_>,
        i: usize,
        first: [usize; 2],
        v: &[f64],
    ) -> [f64; 3] {
        let d = &self.desc[i];
        let j = system.j_values();
        let mut u = [0.0; 4];
        let mut at = d.off;
        for (&first, &n) in first.iter().zip(&d.n) {
            let g = &j[at..at + 3 * n];
            let vt = &v[first..first + n];
            if let (Ok(g), Ok(vt)) = (<&[f64; 18]>::try_from(g), <&[f64; 6]>::try_from(vt)) {
                // A free body: the same sums at fixed lengths, unrolled.
                column_sums(g.as_slice(), vt.as_slice(), &mut u);
            } else {
                column_sums(g, vt, &mut u);
            }
            at += 3 * n;
        }
        [u[0], u[1], u[2]]
    }

    /// `out += J_iᵀ f` with `f` = (normal, tangent 1, tangent 2); `out` has nv entries.
    #[inline(always)]
    pub fn add_force(&self, _system: &BlockSparseSystem<'_>, i: usize, f: [f64; 3], out: &mut [f64]) {
        for (first, r) in self.dof_blocks(i).into_iter().flatten() {
            force_block(r, f, &mut out[first..first + r.len()]);
        }
    }

    /// [`add_force`](Self::add_force) for one of contact i's trees (`slot` 0 or 1, its listed
    /// order) alone, into that tree's entries `out` (the same operations per entry), for sums
    /// taken tree by tree (`docs/performance.md` §8).
    #[inline(always)]
    pub(crate) fn add_force_block(&self, i: usize, slot: usize, f: [f64; 3], out: &mut [f64]) {
        if let Some((_, r)) = self.dof_blocks(i)[slot] {
            force_block(r, f, out);
        }
    }

    /// `tau_t += J_tᵢᵀ ft` and `tau_n += J_nᵢᵀ fn` for contact i in one pass: friction `ft` along
    /// (tangent 1, tangent 2) and the normal force `fn` accumulated separately (both nv).
    #[inline(always)]
    pub fn add_split_force(
        &self,
        _system: &BlockSparseSystem<'_>,
        i: usize,
        ft: [f64; 2],
        fn_: f64,
        tau_t: &mut [f64],
        tau_n: &mut [f64],
    ) {
        for (first, r) in self.dof_blocks(i).into_iter().flatten() {
            let range = first..first + r.len();
            split_block(r, ft, fn_, &mut tau_t[range.clone()], &mut tau_n[range]);
        }
    }

    /// [`add_split_force`](Self::add_split_force) for one of contact i's trees (`slot` 0 or 1,
    /// its listed order) alone, into that tree's entries `tau_t`, `tau_n` (the same operations
    /// per entry).
    #[inline(always)]
    pub(crate) fn add_split_block(
        &self,
        i: usize,
        slot: usize,
        ft: [f64; 2],
        fn_: f64,
        tau_t: &mut [f64],
        tau_n: &mut [f64],
    ) {
        if let Some((_, r)) = self.dof_blocks(i)[slot] {
            split_block(r, ft, fn_, tau_t, tau_n);
        }
    }
}

/// One 3×`N` block `g` (column-major) transposed into `r` (three rows of `N`); `G = 3N`, fixed
/// so that the loop unrolls.
#[inline(always)]
fn transpose_block<const N: usize, const G: usize>(g: &[f64; G], r: &mut [f64; G]) {
    for k in 0..N {
        (r[k], r[N + k], r[2 * N + k]) = (g[3 * k], g[3 * k + 1], g[3 * k + 2]);
    }
}

/// `u[r] += Σ_k g[3k + r]·v[k]` for the rows r = 0, 1, 2 of one 3×n block `g` (column-major,
/// n = `v.len()`), k in increasing order, one `mul_add` per term; the columns but the last as four
/// lanes (the fourth, `u[3]`, collects a neighbour's entry and is never read), the last padded
/// with a zero (it may be the last value of J). Inlined, so that a caller with fixed lengths (a
/// free body's 3×6 block) gets the loop unrolled.
#[inline(always)]
fn column_sums(g: &[f64], v: &[f64], u: &mut [f64; 4]) {
    let Some((&last, v)) = v.split_last() else { return };
    for (k, &x) in v.iter().enumerate() {
        let c = &g[3 * k..3 * k + 4];
        for r in 0..4 {
            u[r] = c[r].mul_add(x, u[r]);
        }
    }
    let n = v.len() + 1;
    let c = [g[3 * n - 3], g[3 * n - 2], g[3 * n - 1], 0.0];
    for r in 0..4 {
        u[r] = c[r].mul_add(last, u[r]);
    }
}

/// `o += Gᵀ f` for one tree block (the kernel of [`ContactRows::add_force`]).
#[inline(always)]
fn force_block(r: Rows<'_>, f: [f64; 3], o: &mut [f64]) {
    if let (Ok(o), Some([n, t1, t2])) = (<&mut [f64; 6]>::try_from(&mut *o), r.fixed::<6>()) {
        // A free body: fixed-length rows, the same operations unrolled.
        for k in 0..6 {
            o[k] = t2[k].mul_add(f[2], t1[k].mul_add(f[1], n[k].mul_add(f[0], o[k])));
        }
        return;
    }
    for (((o, &n), &t1), &t2) in o.iter_mut().zip(r.n).zip(r.t1).zip(r.t2) {
        *o = t2.mul_add(f[2], t1.mul_add(f[1], n.mul_add(f[0], *o)));
    }
}

/// `ot += G_tᵀ ft`, `on += g_n fn` for one tree block (the kernel of
/// [`ContactRows::add_split_force`]).
#[inline(always)]
fn split_block(r: Rows<'_>, ft: [f64; 2], fn_: f64, ot: &mut [f64], on: &mut [f64]) {
    if let (Ok(ot), Ok(on), Some([n, t1, t2])) =
        (<&mut [f64; 6]>::try_from(&mut *ot), <&mut [f64; 6]>::try_from(&mut *on), r.fixed::<6>())
    {
        // A free body: fixed-length rows, the same operations unrolled.
        for k in 0..6 {
            ot[k] = t2[k].mul_add(ft[1], t1[k].mul_add(ft[0], ot[k]));
            on[k] = n[k].mul_add(fn_, on[k]);
        }
        return;
    }
    for ((((ot, on), &n), &t1), &t2) in ot.iter_mut().zip(on.iter_mut()).zip(r.n).zip(r.t1).zip(r.t2) {
        *ot = t2.mul_add(ft[1], t1.mul_add(ft[0], *ot));
        *on = n.mul_add(fn_, *on);
    }
}

/// The three rows of one contact over one tree's dofs.
#[derive(Debug, Clone, Copy)]
pub struct Rows<'s> {
    /// Normal row.
    pub n: &'s [f64],
    /// First tangent row.
    pub t1: &'s [f64],
    /// Second tangent row.
    pub t2: &'s [f64],
}

impl Rows<'_> {
    /// Number of dofs.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.n.len()
    }

    /// Whether the rows are empty (never, for a valid layout).
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.n.is_empty()
    }

    /// The three rows as fixed-length arrays when the tree has `N` dofs.
    #[inline(always)]
    pub fn fixed<const N: usize>(&self) -> Option<[&[f64; N]; 3]> {
        Some([self.n.try_into().ok()?, self.t1.try_into().ok()?, self.t2.try_into().ok()?])
    }
}
