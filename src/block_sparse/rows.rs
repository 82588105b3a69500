//! The contacts' Jacobian blocks as the per-iteration kernels read them: in place, in the
//! caller's packed J (`docs/block_sparse.md` §3).

use super::{BlockSparseError, BlockSparseSystem, try_grow};

/// Where every contact's Jacobian blocks are in the caller's packed J, and the kernels that read
/// them there: the caller's block `G_{i,t}` (3×n_t, column-major: dof k's normal, tangent 1 and
/// tangent 2 entries are the three values from `3k`) is read in place, with no per-solve copy
/// (`docs/performance.md` §3 "The Jacobian read in place"). Contact velocities `J_i v` sum the
/// columns side by side in the lanes of one vector; the forces `J_iᵀ f` take each dof's three
/// terms in order (a free body's block as rows in registers, [`rows6`]); the Newton-matrix
/// updates transpose a contact's blocks into their small scratch as they use them.
///
/// The kernels are `#[inline(always)]` so that they compile inside the caller's SIMD dispatch
/// (`crate::linalg::simd`), where `f64::mul_add` is one fused instruction.
#[derive(Debug, Clone, Default)]
pub struct ContactRows {
    /// The blocks transposed (three contiguous rows, normal, tangent 1, tangent 2, of n_t values
    /// per block, at the packed J's offsets), for the Newton-matrix updates of a solve that
    /// assembles more than once ([`begin_assembly`](Self::begin_assembly)); valid when `copied`.
    rows: Vec<f64>,
    copied: bool,
    /// Assemblies since the last [`prepare`](Self::prepare), and in the solve before it.
    assemblies: u32,
    last_assemblies: u32,
    /// Per contact, where its blocks are: read from the layout so that the per-iteration kernels
    /// look nothing up (issue 29: the layout's lookups cost as much as the arithmetic on 6-dof
    /// trees), and only when the structure changed (`structure`, the layout's
    /// [`BlockSparseLayout::structure_id`](super::BlockSparseLayout::structure_id) they were read
    /// for).
    desc: Vec<ContactDesc>,
    structure: Option<u64>,
}

/// One contact's blocks: offset of its first block in the packed J, and for each
/// tree it touches the tree's first dof and dof count (`n[1] = 0`: one tree).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ContactDesc {
    pub off: usize,
    pub first: [usize; 2],
    pub n: [usize; 2],
}

impl ContactRows {
    /// Reads the contacts' descriptors from `system`'s layout when its structure changed since
    /// the last call (nothing else: the kernels read the caller's packed J in place). Allocates
    /// only when the system has more contacts than any prepared before.
    pub fn prepare(&mut self, system: &BlockSparseSystem<'_>) -> Result<(), BlockSparseError> {
        let layout = system.layout();
        let nc = layout.num_contacts();
        // Grown here (never in a solve), written only by `begin_assembly`.
        try_grow(&mut self.rows, layout.j_len(), 0.0, "transposed Jacobian blocks")?;
        try_grow(&mut self.desc, nc, ContactDesc::default(), "contact descriptors")?;
        self.copied = false;
        self.last_assemblies = std::mem::take(&mut self.assemblies);
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
        Ok(())
    }

    /// Called before each assembly of the Newton matrices: decides where the updates read the
    /// blocks' rows. A solve whose previous solve assembled once (an engine's warm steps, which
    /// converge in one Newton update) reads the caller's blocks in place, transposing each into
    /// the assembly's small scratch as it goes; any other assembly (a cold solve's, an interior
    /// point's, this solve's second) reads a transposed copy made here once per solve, whose
    /// cost the later assemblies share (`docs/performance.md` §3 "The Jacobian read in place").
    /// Same operations on the same values either way.
    pub fn begin_assembly(&mut self, system: &BlockSparseSystem<'_>) {
        self.assemblies = self.assemblies.saturating_add(1);
        if self.copied || (self.assemblies == 1 && self.last_assemblies == 1) {
            return;
        }
        let len = system.layout().j_len();
        let (j, rows) = (&system.j_values()[..len], &mut self.rows[..len]);
        let mut off = 0;
        for d in &self.desc[..system.layout().num_contacts()] {
            for &n in &d.n {
                transpose_into(&j[off..off + 3 * n], &mut rows[off..off + 3 * n]);
                off += 3 * n;
            }
        }
        self.copied = true;
    }

    /// The transposed rows of the `len` values of J from `off` (the blocks of consecutive
    /// contacts, three rows each), when this solve made the copy
    /// ([`begin_assembly`](Self::begin_assembly)).
    #[inline(always)]
    pub(crate) fn copied_rows(&self, off: usize, len: usize) -> Option<&[f64]> {
        self.copied.then(|| &self.rows[off..off + len])
    }

    /// Contact i's blocks: for each tree it touches (in its listed order), the tree and the
    /// caller's block `G_{i,t}` (3×n_t, column-major: dof k's normal, tangent 1 and tangent 2
    /// entries are the three values from `3k`).
    #[inline(always)]
    pub fn blocks<'s>(&self, system: &BlockSparseSystem<'s>, i: usize) -> [Option<(usize, &'s [f64])>; 2] {
        let (a, b) = system.layout().contact_trees(i);
        let d = &self.desc[i];
        let j = system.j_values();
        let second = d.off + 3 * d.n[0];
        [Some((a, &j[d.off..second])), b.map(|b| (b, &j[second..second + 3 * d.n[1]]))]
    }

    /// Contact i's descriptor (offsets read from the layout at [`prepare`](Self::prepare)).
    #[inline(always)]
    pub(crate) fn desc(&self, i: usize) -> &ContactDesc {
        &self.desc[i]
    }

    /// Contact i's blocks as (first dof of the tree, column-major block); the second is `None`
    /// for a one-tree contact.
    #[inline(always)]
    fn dof_blocks<'s>(&self, j: &'s [f64], i: usize) -> [Option<(usize, &'s [f64])>; 2] {
        let d = &self.desc[i];
        let second = d.off + 3 * d.n[0];
        let first = Some((d.first[0], &j[d.off..second]));
        let second = (d.n[1] > 0).then(|| (d.first[1], &j[second..second + 3 * d.n[1]]));
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
    pub fn add_force(&self, system: &BlockSparseSystem<'_>, i: usize, f: [f64; 3], out: &mut [f64]) {
        for (first, g) in self.dof_blocks(system.j_values(), i).into_iter().flatten() {
            force_block(g, f, &mut out[first..first + g.len() / 3]);
        }
    }

    /// [`add_force`](Self::add_force) for one of contact i's trees (`slot` 0 or 1, its listed
    /// order) alone, into that tree's entries `out` (the same operations per entry), for sums
    /// taken tree by tree (`docs/performance.md` §8).
    #[inline(always)]
    pub(crate) fn add_force_block(
        &self,
        system: &BlockSparseSystem<'_>,
        i: usize,
        slot: usize,
        f: [f64; 3],
        out: &mut [f64],
    ) {
        if let Some((_, g)) = self.dof_blocks(system.j_values(), i)[slot] {
            force_block(g, f, out);
        }
    }

    /// `tau_t += J_tᵢᵀ ft` and `tau_n += J_nᵢᵀ fn` for contact i in one pass: friction `ft` along
    /// (tangent 1, tangent 2) and the normal force `fn` accumulated separately (both nv).
    #[inline(always)]
    pub fn add_split_force(
        &self,
        system: &BlockSparseSystem<'_>,
        i: usize,
        ft: [f64; 2],
        fn_: f64,
        tau_t: &mut [f64],
        tau_n: &mut [f64],
    ) {
        for (first, g) in self.dof_blocks(system.j_values(), i).into_iter().flatten() {
            let range = first..first + g.len() / 3;
            split_block(g, ft, fn_, &mut tau_t[range.clone()], &mut tau_n[range]);
        }
    }

    /// Contact i's block on one of its trees (`slot` 0 or 1, its listed order), column-major
    /// 3×n_t, for sums taken tree by tree ([`split_block`] on it: the operations of
    /// [`add_split_force`](Self::add_split_force) per entry).
    #[inline(always)]
    pub(crate) fn tree_block<'s>(
        &self,
        system: &BlockSparseSystem<'s>,
        i: usize,
        slot: usize,
    ) -> Option<&'s [f64]> {
        self.dof_blocks(system.j_values(), i)[slot].map(|(_, g)| g)
    }
}

/// A free body's 3×6 block `g` (column-major) as its three rows (normal, tangent 1, tangent 2),
/// in registers: the kernels that work along the dofs read the caller's block through this.
#[inline(always)]
pub(crate) fn rows6(g: &[f64; 18]) -> [[f64; 6]; 3] {
    let mut r = [[0.0; 6]; 3];
    for k in 0..6 {
        (r[0][k], r[1][k], r[2][k]) = (g[3 * k], g[3 * k + 1], g[3 * k + 2]);
    }
    r
}

/// [`rows6`] as one array of 18 (the three rows back to back).
#[inline(always)]
pub(crate) fn rows6_flat(g: &[f64; 18]) -> [f64; 18] {
    let mut r = [0.0; 18];
    for k in 0..6 {
        (r[k], r[6 + k], r[12 + k]) = (g[3 * k], g[3 * k + 1], g[3 * k + 2]);
    }
    r
}

/// One 3×n block `g` (column-major) transposed into `out` (three rows of n: normal, tangent 1,
/// tangent 2), for the kernels that work along the dofs; a free body's block with fixed lengths.
#[inline(always)]
pub(crate) fn transpose_into(g: &[f64], out: &mut [f64]) {
    if let (Ok(g), Ok(o)) = (<&[f64; 18]>::try_from(g), <&mut [f64; 18]>::try_from(&mut *out)) {
        *o = rows6_flat(g);
        return;
    }
    let n = g.len() / 3;
    for (k, col) in g.chunks_exact(3).enumerate() {
        (out[k], out[n + k], out[2 * n + k]) = (col[0], col[1], col[2]);
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

/// `o += Gᵀ f` for one tree block `g` (column-major 3×n; the kernel of
/// [`ContactRows::add_force`]): per dof `k` the terms normal, tangent 1, tangent 2 in that order.
#[inline(always)]
fn force_block(g: &[f64], f: [f64; 3], o: &mut [f64]) {
    if let (Ok(o), Ok(g)) = (<&mut [f64; 6]>::try_from(&mut *o), <&[f64; 18]>::try_from(g)) {
        // A free body: its rows in registers, the same operations unrolled.
        let [n, t1, t2] = rows6(g);
        for k in 0..6 {
            o[k] = t2[k].mul_add(f[2], t1[k].mul_add(f[1], n[k].mul_add(f[0], o[k])));
        }
        return;
    }
    for (o, c) in o.iter_mut().zip(g.chunks_exact(3)) {
        *o = c[2].mul_add(f[2], c[1].mul_add(f[1], c[0].mul_add(f[0], *o)));
    }
}

/// `ot += G_tᵀ ft`, `on += g_n fn` for one tree block `g` (column-major 3×n; the kernel of
/// [`ContactRows::add_split_force`]).
#[inline(always)]
pub(crate) fn split_block(g: &[f64], ft: [f64; 2], fn_: f64, ot: &mut [f64], on: &mut [f64]) {
    if let (Ok(ot), Ok(on), Ok(g)) =
        (<&mut [f64; 6]>::try_from(&mut *ot), <&mut [f64; 6]>::try_from(&mut *on), <&[f64; 18]>::try_from(g))
    {
        // A free body: its rows in registers, the same operations unrolled.
        let [n, t1, t2] = rows6(g);
        for k in 0..6 {
            ot[k] = t2[k].mul_add(ft[1], t1[k].mul_add(ft[0], ot[k]));
            on[k] = n[k].mul_add(fn_, on[k]);
        }
        return;
    }
    for ((ot, on), c) in ot.iter_mut().zip(on.iter_mut()).zip(g.chunks_exact(3)) {
        *ot = c[2].mul_add(ft[1], c[1].mul_add(ft[0], *ot));
        *on = c[0].mul_add(fn_, *on);
    }
}

/// The three rows of one contact over one tree's dofs (a block transposed by
/// [`transpose_into`], for the Newton-matrix updates).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rows<'s> {
    /// Normal row.
    pub n: &'s [f64],
    /// First tangent row.
    pub t1: &'s [f64],
    /// Second tangent row.
    pub t2: &'s [f64],
}

impl<'s> Rows<'s> {
    /// The rows of a transposed block `r` (three rows of `r.len() / 3` values, as
    /// [`transpose_into`] writes them).
    #[inline(always)]
    pub(crate) fn new(r: &'s [f64]) -> Self {
        let n = r.len() / 3;
        let (n0, rest) = r.split_at(n);
        let (t1, t2) = rest.split_at(n);
        Rows { n: n0, t1, t2 }
    }

    /// Number of dofs.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.n.len()
    }

    /// The three rows as fixed-length arrays when the tree has `N` dofs.
    #[inline(always)]
    pub fn fixed<const N: usize>(&self) -> Option<[&[f64; N]; 3]> {
        Some([self.n.try_into().ok()?, self.t1.try_into().ok()?, self.t2.try_into().ok()?])
    }
}
