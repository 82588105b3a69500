//! Symbolic analysis of a block pattern: fill-reducing ordering of the block graph, elimination
//! tree, block structure of the factors, supernodes, value layout, and the scatter plan of the
//! numeric factorization.
//!
//! Everything here works on blocks (trees), not on scalar entries: the pattern of the matrix is
//! the graph whose nodes are the diagonal blocks and whose edges are the coupled block pairs, and
//! every block of the factors is dense. The cost is therefore in the number of blocks and coupled
//! pairs, not in dofs or nonzeros.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::sparse::SymbolicSparseColMatRef;
use faer::sparse::linalg::amd;

use super::shared::{Kind, SparseError, try_filled};

/// A block pattern in canonical form: the block sizes and the coupled pairs `(a, b)`, `a < b`,
/// sorted and without duplicates. Two patterns are the same matrix structure exactly when their
/// canonical forms are equal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct PatternKey {
    pub dims: Vec<usize>,
    pub pairs: Vec<(usize, usize)>,
}

impl PatternKey {
    /// Validates `dims` and `pairs` and writes their canonical form into `self` (reusing its
    /// storage).
    pub fn assign(&mut self, dims: &[usize], pairs: &[(usize, usize)]) -> Result<(), SparseError> {
        let nb = dims.len();
        if let Some(b) = dims.iter().position(|&d| d == 0) {
            return Err(SparseError::InvalidPattern(format!("block {b} has size 0")));
        }
        let mut n = 0usize;
        for &d in dims {
            n = n.checked_add(d).ok_or_else(|| SparseError::InvalidPattern("total size overflows".into()))?;
        }
        // Every scalar index and every value offset must stay far from overflow.
        if n > (isize::MAX as usize) / 16 {
            return Err(SparseError::InvalidPattern(format!("total size {n} too large")));
        }
        for (k, &(a, b)) in pairs.iter().enumerate() {
            if a >= nb || b >= nb {
                return Err(SparseError::InvalidPattern(format!(
                    "pair {k} = ({a}, {b}): block index out of range (number of blocks {nb})"
                )));
            }
            if a == b {
                return Err(SparseError::InvalidPattern(format!(
                    "pair {k} = ({a}, {a}) couples a block with itself (diagonal blocks are always present)"
                )));
            }
        }
        self.dims.clear();
        try_reserve(&mut self.dims, nb)?;
        self.dims.extend_from_slice(dims);
        self.pairs.clear();
        try_reserve(&mut self.pairs, pairs.len())?;
        self.pairs.extend(pairs.iter().map(|&(a, b)| (a.min(b), a.max(b))));
        if !self.pairs.is_sorted() {
            self.pairs.sort_unstable();
        }
        self.pairs.dedup();
        Ok(())
    }
}

/// Location of a stored block: element (i, j) of the block is `values[offset + i·rs + j·cs]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct BlockLoc {
    /// Which value array: the L panels (false) or the U panels (true).
    pub upper_panel: bool,
    pub offset: usize,
    pub rs: usize,
    pub cs: usize,
}

/// One run of the scatter plan: rows `src_row..src_row + nrows` of a column group of the update
/// matrix go to `dst + c·ld` (column `c` of the group) in the L panels (`upper_panel == false`)
/// or the U panels.
#[derive(Debug, Clone, Copy)]
pub(super) struct Run {
    pub src_row: usize,
    pub nrows: usize,
    pub dst: usize,
    pub ld: usize,
    pub upper_panel: bool,
}

/// A column group of the scatter plan: columns `src_col..src_col + ncols` of the update matrix
/// (one block column), with its runs `runs[run_start..run_end]`.
#[derive(Debug, Clone, Copy)]
pub(super) struct ColGroup {
    pub src_col: usize,
    pub ncols: usize,
    pub run_start: usize,
    pub run_end: usize,
}

/// The analysis of one pattern, for one kind of factorization.
#[derive(Debug, Clone)]
pub(super) struct Symbolic {
    pub key: PatternKey,
    pub kind: Kind,
    /// Matrix size (sum of the block sizes).
    pub n: usize,
    /// Permuted scalar index → original scalar index.
    pub scalar_perm: Vec<usize>,
    /// Supernode s holds the permuted scalar columns `sn_col[s]..sn_col[s + 1]`.
    pub sn_col: Vec<usize>,
    /// Permuted scalar row indices below supernode s: `row_idx[row_ptr[s]..row_ptr[s + 1]]`,
    /// ascending. Its length is the supernode's `r`.
    pub row_ptr: Vec<usize>,
    pub row_idx: Vec<usize>,
    /// Offset of supernode s's L panel: `(w + r) × w` column-major, leading dimension `w + r`;
    /// rows are the supernode's own columns (the diagonal block), then its rows below.
    pub l_ptr: Vec<usize>,
    /// Offset of supernode s's U panel (LU only): `w × r` column-major, leading dimension `w`.
    pub u_ptr: Vec<usize>,
    pub l_len: usize,
    pub u_len: usize,
    /// Scatter plan of the Schur-complement update of supernode s:
    /// `groups[group_ptr[s]..group_ptr[s + 1]]`.
    pub group_ptr: Vec<usize>,
    pub groups: Vec<ColGroup>,
    pub runs: Vec<Run>,
    /// Stored location of every block of the pattern: for original block a, its neighbours
    /// (itself included) `nbr[nbr_ptr[a]..nbr_ptr[a + 1]]`, ascending, with their locations.
    pub nbr_ptr: Vec<usize>,
    pub nbr: Vec<usize>,
    pub loc: Vec<BlockLoc>,
    /// The stored values outside every block of the pattern (the fill, the explicit zeros of
    /// the amalgamated supernodes, and for LDLᵀ the unread upper part of the diagonal blocks),
    /// as `(start, len)` ranges of the L panels and of the U panels: what
    /// [`Engine::clear_fill`](super::Engine::clear_fill) zeros.
    pub fill_l: Vec<(usize, usize)>,
    pub fill_u: Vec<(usize, usize)>,
    /// Largest supernode width and largest `r`.
    pub max_w: usize,
    pub max_r: usize,
    /// Floating-point operations of one numeric factorization (multiply-adds count 2).
    pub flops: f64,
}

/// Relaxed supernode amalgamation: a supernode is merged into its parent when the merged one has
/// at most `max_width` columns and its share of explicitly stored zeros stays below `max_zeros`
/// (CHOLMOD's rule, with widths in scalar columns).
const RELAX: [(usize, f64); 3] = [(16, 0.8), (48, 0.1), (usize::MAX, 0.05)];

impl Symbolic {
    /// Analyzes `key` (already canonical).
    pub fn analyze(key: &PatternKey, kind: Kind) -> Result<Self, SparseError> {
        let nb = key.dims.len();
        let n: usize = key.dims.iter().sum();

        // Block graph, both orientations, sorted (CSC of the structure without the diagonal).
        let mut adj_ptr = try_filled(nb + 1, 0usize)?;
        for &(a, b) in &key.pairs {
            adj_ptr[a + 1] += 1;
            adj_ptr[b + 1] += 1;
        }
        for k in 0..nb {
            adj_ptr[k + 1] += adj_ptr[k];
        }
        let mut adj = try_filled(adj_ptr[nb], 0usize)?;
        let mut fill = adj_ptr.clone();
        // Pairs are sorted by (a, b): pushing b into a's list and a into b's list in this order
        // keeps every list ascending (for a given column, smaller neighbours come from pairs
        // (x, col) with x ascending, larger ones from pairs (col, y) after them).
        for &(a, b) in &key.pairs {
            adj[fill[b]] = a;
            fill[b] += 1;
        }
        for &(a, b) in &key.pairs {
            adj[fill[a]] = b;
            fill[a] += 1;
        }
        for k in 0..nb {
            adj[adj_ptr[k]..adj_ptr[k + 1]].sort_unstable();
        }

        // Fill-reducing order of the blocks: approximate minimum degree on the block graph.
        let mut order = try_filled(nb, 0usize)?;
        let mut order_inv = try_filled(nb, 0usize)?;
        if nb > 0 {
            let graph = SymbolicSparseColMatRef::new_checked(nb, nb, &adj_ptr, None, &adj);
            let mut mem = MemBuffer::try_new(amd::order_scratch::<usize>(nb, adj.len()))
                .map_err(|_| SparseError::OutOfMemory)?;
            amd::order(&mut order, &mut order_inv, graph, amd::Control::default(), MemStack::new(&mut mem))
                .map_err(|_| SparseError::OutOfMemory)?;
        }

        // Elimination tree in that order, then a postorder of it (same fill, children before
        // parents, every subtree contiguous).
        let parent0 = etree(&order, &order_inv, &adj_ptr, &adj)?;
        let post = postorder(&parent0)?;
        // pos → original block, and back.
        let mut perm = try_filled(nb, 0usize)?;
        let mut pos = try_filled(nb, 0usize)?;
        for (k, &p) in post.iter().enumerate() {
            perm[k] = order[p];
            pos[order[p]] = k;
        }
        // Parent of each position in the new order.
        let mut post_inv = try_filled(nb, 0usize)?;
        for (k, &p) in post.iter().enumerate() {
            post_inv[p] = k;
        }
        let mut parent = try_filled(nb, usize::MAX)?;
        for (k, &p) in post.iter().enumerate() {
            if parent0[p] != usize::MAX {
                parent[k] = post_inv[parent0[p]];
            }
        }

        // Block structure of L below each block column (positions, ascending):
        // struct(k) = {neighbours after k} ∪ ⋃_{children c} struct(c) \ {k}.
        let mut children_ptr = try_filled(nb + 1, 0usize)?;
        for &p in &parent {
            if p != usize::MAX {
                children_ptr[p + 1] += 1;
            }
        }
        for k in 0..nb {
            children_ptr[k + 1] += children_ptr[k];
        }
        let mut children = try_filled(children_ptr[nb], 0usize)?;
        {
            let mut f = children_ptr.clone();
            for (k, &p) in parent.iter().enumerate() {
                if p != usize::MAX {
                    children[f[p]] = k;
                    f[p] += 1;
                }
            }
        }
        let mut st_ptr = try_filled(nb + 1, 0usize)?;
        let mut st: Vec<usize> = Vec::new();
        let mut mark = try_filled(nb, usize::MAX)?;
        for k in 0..nb {
            let start = st.len();
            let kids = &children[children_ptr[k]..children_ptr[k + 1]];
            let bound = adj_ptr[perm[k] + 1] - adj_ptr[perm[k]]
                + kids.iter().map(|&c| st_ptr[c + 1] - st_ptr[c]).sum::<usize>();
            try_reserve(&mut st, bound)?;
            mark[k] = k;
            for &o in &adj[adj_ptr[perm[k]]..adj_ptr[perm[k] + 1]] {
                let q = pos[o];
                if q > k && mark[q] != k {
                    mark[q] = k;
                    st.push(q);
                }
            }
            for &c in kids {
                for i in st_ptr[c]..st_ptr[c + 1] {
                    let q = st[i];
                    if mark[q] != k {
                        mark[q] = k;
                        st.push(q);
                    }
                }
            }
            st[start..].sort_unstable();
            st_ptr[k + 1] = st.len();
        }

        // Scalar layout in the new order.
        let mut bstart = try_filled(nb + 1, 0usize)?;
        for k in 0..nb {
            bstart[k + 1] = bstart[k] + key.dims[perm[k]];
        }
        let mut ostart = try_filled(nb + 1, 0usize)?;
        for b in 0..nb {
            ostart[b + 1] = ostart[b] + key.dims[b];
        }
        let mut scalar_perm = try_filled(n, 0usize)?;
        for k in 0..nb {
            for i in 0..key.dims[perm[k]] {
                scalar_perm[bstart[k] + i] = ostart[perm[k]] + i;
            }
        }
        let scalar_rows =
            |k: usize| -> usize { st[st_ptr[k]..st_ptr[k + 1]].iter().map(|&q| key.dims[perm[q]]).sum() };

        // Supernodes: fundamental ones (k joins k − 1 when k − 1 is its only child and the
        // structures nest exactly), then relaxed amalgamation into the parent.
        let mut first = try_filled(nb, 0usize)?; // first block of the supernode ending at k
        // Scalar width, scalar rows below and stored zeros of the supernode ending at block k.
        let mut width = try_filled(nb, 0usize)?;
        let mut rows = try_filled(nb, 0usize)?;
        let mut zeros = try_filled(nb, 0f64)?;
        let mut is_last = try_filled(nb, true)?;
        for k in 0..nb {
            let d = key.dims[perm[k]];
            let r = scalar_rows(k);
            first[k] = k;
            width[k] = d;
            rows[k] = r;
            zeros[k] = 0.0;
            if k == 0 {
                continue;
            }
            let c = k - 1;
            // k − 1 ends a supernode; merge it into k's when it is k's child and the last one
            // (contiguous) and the merged supernode is dense enough.
            if parent[c] != k || !is_last[c] {
                continue;
            }
            let nchildren = children_ptr[k + 1] - children_ptr[k];
            let fundamental = nchildren == 1 && st_ptr[c + 1] - st_ptr[c] == st_ptr[k + 1] - st_ptr[k] + 1;
            // Zeros the merge adds: the child's columns get rows for all of k's rows.
            let (wc, rc) = (width[c], rows[c]);
            let new_zeros = zeros[c] + (wc as f64) * ((d + r) as f64 - rc as f64);
            let w = wc + d;
            let stored = (w * (w + 1) / 2 + w * r) as f64;
            let frac = new_zeros / stored;
            let relaxed = RELAX.iter().any(|&(max_w, max_z)| w <= max_w && frac < max_z);
            if fundamental || relaxed {
                is_last[c] = false;
                first[k] = first[c];
                width[k] = w;
                zeros[k] = new_zeros;
            }
        }
        let mut sn_block = Vec::new(); // first block of each supernode, then nb
        for k in 0..nb {
            if is_last[k] {
                try_reserve(&mut sn_block, 2)?;
                sn_block.push(first[k]);
            }
        }
        sn_block.push(nb);
        let nsn = sn_block.len() - 1;
        let mut sn_of = try_filled(nb, 0usize)?;
        for s in 0..nsn {
            sn_of[sn_block[s]..sn_block[s + 1]].fill(s);
        }
        let mut sn_col = try_filled(nsn + 1, 0usize)?;
        for s in 0..=nsn {
            sn_col[s] = bstart[sn_block[s]];
        }
        // Rows below supernode s: the structure of its last block.
        let sn_rows = |s: usize| -> &[usize] {
            let last = sn_block[s + 1] - 1;
            &st[st_ptr[last]..st_ptr[last + 1]]
        };
        let mut row_ptr = try_filled(nsn + 1, 0usize)?;
        for s in 0..nsn {
            row_ptr[s + 1] = row_ptr[s] + sn_rows(s).iter().map(|&q| key.dims[perm[q]]).sum::<usize>();
        }
        let mut row_idx = try_filled(row_ptr[nsn], 0usize)?;
        for (s, &start) in row_ptr[..nsn].iter().enumerate() {
            let mut i = start;
            for &q in sn_rows(s) {
                for c in bstart[q]..bstart[q + 1] {
                    row_idx[i] = c;
                    i += 1;
                }
            }
        }

        // Value layout.
        let mut l_ptr = try_filled(nsn + 1, 0usize)?;
        let mut u_ptr = try_filled(nsn + 1, 0usize)?;
        let (mut max_w, mut max_r, mut flops) = (0usize, 0usize, 0f64);
        for s in 0..nsn {
            let w = sn_col[s + 1] - sn_col[s];
            let r = row_ptr[s + 1] - row_ptr[s];
            let l = (w + r).checked_mul(w).ok_or(SparseError::OutOfMemory)?;
            l_ptr[s + 1] = l_ptr[s].checked_add(l).ok_or(SparseError::OutOfMemory)?;
            let u = if kind == Kind::Lu { w * r } else { 0 };
            u_ptr[s + 1] = u_ptr[s].checked_add(u).ok_or(SparseError::OutOfMemory)?;
            max_w = max_w.max(w);
            max_r = max_r.max(r);
            let (wf, rf) = (w as f64, r as f64);
            flops += match kind {
                // Diagonal LU, two triangular solves, the r×r update.
                Kind::Lu => 2.0 / 3.0 * wf * wf * wf + 2.0 * rf * wf * wf + 2.0 * rf * rf * wf,
                // Diagonal LDLᵀ, one triangular solve, the lower half of the update.
                Kind::Ldlt => wf * wf * wf / 3.0 + rf * wf * wf + rf * (rf + 1.0) * wf,
            };
        }
        let (l_len, u_len) = (l_ptr[nsn], u_ptr[nsn]);
        if (l_len.max(u_len)) > (isize::MAX as usize) / 8 {
            return Err(SparseError::OutOfMemory);
        }

        // Where block (row block at position p, column block at position q) is stored, for the
        // lower storage (p's supernode ≥ q's) and, for LU, the upper storage.
        // Offset of block q in the row list of supernode t, in scalar rows below the diagonal
        // block.
        let mut st_off = try_filled(st.len(), 0usize)?;
        for k in 0..nb {
            let mut o = 0;
            for i in st_ptr[k]..st_ptr[k + 1] {
                st_off[i] = o;
                o += key.dims[perm[st[i]]];
            }
        }
        let row_offset = |t: usize, q: usize| -> usize {
            let last = sn_block[t + 1] - 1;
            let list = &st[st_ptr[last]..st_ptr[last + 1]];
            let i = list.binary_search(&q).expect("fill structure: block must be in the row list");
            st_off[st_ptr[last] + i]
        };
        let w_of = |t: usize| sn_col[t + 1] - sn_col[t];
        let r_of = |t: usize| row_ptr[t + 1] - row_ptr[t];
        let locate = |p: usize, q: usize| -> BlockLoc {
            let (tp, tq) = (sn_of[p], sn_of[q]);
            if tp >= tq {
                // L panel of tq (the diagonal block when tp == tq).
                let ld = w_of(tq) + r_of(tq);
                let row = if tp == tq { bstart[p] - sn_col[tq] } else { w_of(tq) + row_offset(tq, p) };
                let col = bstart[q] - sn_col[tq];
                BlockLoc { upper_panel: false, offset: l_ptr[tq] + row + col * ld, rs: 1, cs: ld }
            } else {
                // U panel of tp.
                let ld = w_of(tp);
                let row = bstart[p] - sn_col[tp];
                let col = row_offset(tp, q);
                BlockLoc { upper_panel: true, offset: u_ptr[tp] + row + col * ld, rs: 1, cs: ld }
            }
        };

        // Block locations for assembly.
        let mut nbr_ptr = try_filled(nb + 1, 0usize)?;
        for a in 0..nb {
            nbr_ptr[a + 1] = nbr_ptr[a] + adj_ptr[a + 1] - adj_ptr[a] + 1;
        }
        let mut nbr = try_filled(nbr_ptr[nb], 0usize)?;
        let mut loc = try_filled(nbr_ptr[nb], BlockLoc { upper_panel: false, offset: 0, rs: 1, cs: 1 })?;
        for a in 0..nb {
            let list = &adj[adj_ptr[a]..adj_ptr[a + 1]];
            let split = list.partition_point(|&b| b < a);
            let with_self = list[..split].iter().chain(std::iter::once(&a)).chain(&list[split..]);
            for (i, &b) in (nbr_ptr[a]..).zip(with_self) {
                let (p, q) = (pos[a], pos[b]);
                nbr[i] = b;
                loc[i] = match kind {
                    Kind::Lu => locate(p, q),
                    Kind::Ldlt if p >= q => locate(p, q),
                    Kind::Ldlt => {
                        // Stored transposed, as block (b, a) of the lower triangle.
                        let l = locate(q, p);
                        BlockLoc { rs: l.cs, cs: l.rs, ..l }
                    }
                };
            }
        }

        // The stored values no block of the pattern covers.
        let blocks = || {
            (0..nb)
                .flat_map(|a| (nbr_ptr[a]..nbr_ptr[a + 1]).map(move |i| (a, i)))
                .map(|(a, i)| (loc[i], key.dims[a], key.dims[nbr[i]]))
        };
        let fill_l = uncovered(l_len, blocks().filter(|b| !b.0.upper_panel))?;
        let fill_u = uncovered(u_len, blocks().filter(|b| b.0.upper_panel))?;

        // Scatter plan: the update of supernode s is W = L21·U12 (r×r, rows and columns in the
        // order of s's row list); its block (i, j) goes to the stored block (p_i, q_j).
        let mut group_ptr = try_filled(nsn + 1, 0usize)?;
        let mut groups: Vec<ColGroup> = Vec::new();
        let mut runs: Vec<Run> = Vec::new();
        for s in 0..nsn {
            let list = sn_rows(s);
            try_reserve(&mut groups, list.len())?;
            let mut src_col = 0;
            for (jj, &q) in list.iter().enumerate() {
                try_reserve(&mut runs, list.len())?;
                let dq = key.dims[perm[q]];
                let run_start = runs.len();
                let mut src_row = 0;
                let first_row = if kind == Kind::Ldlt { jj } else { 0 };
                for &p in &list[..first_row] {
                    src_row += key.dims[perm[p]];
                }
                for &p in &list[first_row..] {
                    let dp = key.dims[perm[p]];
                    let l = locate(p, q);
                    let ld = l.cs;
                    match runs[run_start..].last_mut() {
                        Some(run)
                            if run.upper_panel == l.upper_panel
                                && run.ld == ld
                                && run.dst + run.nrows == l.offset
                                && run.src_row + run.nrows == src_row =>
                        {
                            run.nrows += dp;
                        }
                        _ => {
                            runs.push(Run {
                                src_row,
                                nrows: dp,
                                dst: l.offset,
                                ld,
                                upper_panel: l.upper_panel,
                            });
                        }
                    }
                    src_row += dp;
                }
                groups.push(ColGroup { src_col, ncols: dq, run_start, run_end: runs.len() });
                src_col += dq;
            }
            group_ptr[s + 1] = groups.len();
        }

        Ok(Self {
            key: key.clone(),
            kind,
            n,
            scalar_perm,
            sn_col,
            row_ptr,
            row_idx,
            l_ptr,
            u_ptr,
            l_len,
            u_len,
            group_ptr,
            groups,
            runs,
            nbr_ptr,
            nbr,
            loc,
            fill_l,
            fill_u,
            max_w,
            max_r,
            flops,
        })
    }

    /// Number of supernodes.
    pub fn n_supernodes(&self) -> usize {
        self.sn_col.len() - 1
    }

    /// Location of block (a, b) (original block indices), if it is in the pattern.
    pub fn block_loc(&self, a: usize, b: usize) -> Option<BlockLoc> {
        let nb = self.key.dims.len();
        if a >= nb || b >= nb {
            return None;
        }
        let range = self.nbr_ptr[a]..self.nbr_ptr[a + 1];
        let i = self.nbr[range.clone()].binary_search(&b).ok()?;
        Some(self.loc[range.start + i])
    }
}

/// The `(start, len)` ranges of `0..len` that none of `blocks` (a location and its rows and
/// columns) covers, ascending and maximal.
fn uncovered(
    len: usize,
    blocks: impl Iterator<Item = (BlockLoc, usize, usize)>,
) -> Result<Vec<(usize, usize)>, SparseError> {
    let mut covered = try_filled(len, false)?;
    for (l, rows, cols) in blocks {
        for c in 0..cols {
            for r in 0..rows {
                covered[l.offset + r * l.rs + c * l.cs] = true;
            }
        }
    }
    let mut ranges = Vec::new();
    let mut i = 0;
    while i < len {
        if covered[i] {
            i += 1;
            continue;
        }
        let start = i;
        while i < len && !covered[i] {
            i += 1;
        }
        try_reserve(&mut ranges, 1)?;
        ranges.push((start, i - start));
    }
    Ok(ranges)
}

/// Elimination tree of the block graph in the order `order` (position → block), by position;
/// `usize::MAX` for a root (Liu's algorithm with path compression).
fn etree(
    order: &[usize],
    order_inv: &[usize],
    adj_ptr: &[usize],
    adj: &[usize],
) -> Result<Vec<usize>, SparseError> {
    let nb = order.len();
    let mut parent = try_filled(nb, usize::MAX)?;
    let mut ancestor = try_filled(nb, usize::MAX)?;
    for (k, &b) in order.iter().enumerate() {
        for &o in &adj[adj_ptr[b]..adj_ptr[b + 1]] {
            let mut i = order_inv[o];
            if i >= k {
                continue;
            }
            // Climb from i to the root of its current subtree, pointing the path at k.
            loop {
                let next = ancestor[i];
                if next == k {
                    break;
                }
                ancestor[i] = k;
                if next == usize::MAX {
                    parent[i] = k;
                    break;
                }
                i = next;
            }
        }
    }
    Ok(parent)
}

/// A postorder of the forest `parent`: `post[k]` is the node visited k-th; children are visited
/// in increasing order, each subtree contiguously, before its root.
fn postorder(parent: &[usize]) -> Result<Vec<usize>, SparseError> {
    let n = parent.len();
    // Children lists as linked lists: head[p] is p's first child, next[c] its next sibling.
    let mut head = try_filled(n, usize::MAX)?;
    let mut next = try_filled(n, usize::MAX)?;
    for k in (0..n).rev() {
        let p = parent[k];
        if p != usize::MAX {
            next[k] = head[p];
            head[p] = k;
        }
    }
    let mut post = try_filled(n, 0usize)?;
    let mut stack = try_filled(n, 0usize)?;
    let mut count = 0;
    for (root, &p) in parent.iter().enumerate() {
        if p != usize::MAX {
            continue;
        }
        let mut top = 0;
        stack[0] = root;
        while top != usize::MAX {
            let node = stack[top];
            let child = head[node];
            if child == usize::MAX {
                post[count] = node;
                count += 1;
                top = top.wrapping_sub(1);
            } else {
                head[node] = next[child];
                top += 1;
                stack[top] = child;
            }
        }
    }
    debug_assert_eq!(count, n);
    Ok(post)
}

/// `v.try_reserve(additional)` as a [`SparseError`].
pub(super) fn try_reserve<T>(v: &mut Vec<T>, additional: usize) -> Result<(), SparseError> {
    v.try_reserve(additional).map_err(|_| SparseError::OutOfMemory)
}
