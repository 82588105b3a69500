//! Newton matrices `M + s·Σᵢ Jᵢᵀ Wᵢ Jᵢ` of a block-sparse system, island by island
//! (`docs/block_sparse.md` §3).

use nalgebra::DMatrixViewMut;

use std::sync::atomic::{AtomicBool, Ordering};

use super::rows::rows6_flat;
use super::{
    BlockSparseError, BlockSparseLayout, BlockSparseSystem, ContactRows, Islands, Rows, transpose_into,
    try_grow,
};
use crate::linalg::simd::dispatch_fn;
use crate::linalg::{BLOCK_SPARSE_MIN_DIM, BlockSparseLdlt, BlockSparseLu, Ldlt, PartialPivLu, padded_dim};
use crate::parallel::{Parts, WorkerPool, balanced_cuts};

/// Which factorization the Newton matrices get.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Factorization {
    /// Partial-pivot LU (any square matrix; never reports failure, like the dense TAMSI path).
    Lu,
    /// Eigen-compatible LDLᵀ (symmetric; reads the lower triangle; reports failure).
    Ldlt,
}

/// How one island's Newton matrix is stored and factored (`docs/block_sparse.md` §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Backend {
    /// Dense column-major `n×n`, the dense kernels of `crate::linalg`.
    #[default]
    Dense,
    /// Block-sparse supernodal factorization of the island's tree pattern, analysed once per
    /// solve (and reused across solves while the pattern holds).
    Sparse,
}

/// The factorizations of one island's Newton matrix. Only the ones its back end and the kind
/// need ever grow.
#[derive(Debug, Default)]
struct IslandFactor {
    backend: Backend,
    /// This iteration's sparse factorization failed (restricted pivoting, see
    /// `crate::linalg::BlockSparseLu`) and the dense one holds the factors instead.
    dense_fallback: bool,
    lu: PartialPivLu,
    ldlt: Ldlt,
    sparse_lu: Option<Box<BlockSparseLu>>,
    sparse_ldlt: Option<Box<BlockSparseLdlt>>,
    /// The island's right-hand side and solution in local numbering, for parallel solves (grown
    /// by [`BlockNewtonMatrix::prepare_parallel`]).
    x: Vec<f64>,
}

impl Clone for IslandFactor {
    /// Clones the dense factors; the sparse factorizations are not cloned (their analysis is
    /// redone by the next [`BlockNewtonMatrix::prepare`]).
    fn clone(&self) -> Self {
        Self {
            backend: Backend::Dense,
            dense_fallback: false,
            lu: self.lu.clone(),
            ldlt: self.ldlt.clone(),
            sparse_lu: None,
            sparse_ldlt: None,
            x: Vec::new(),
        }
    }
}

/// One participant's scratch in a parallel island phase.
#[derive(Debug, Clone, Default)]
struct PartScratch {
    wg: Vec<f64>,
    tmp: Vec<f64>,
}

/// How one island's factorization went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Factored {
    Ok,
    /// The LDLᵀ reported failure (its factors are still usable).
    Failed,
    /// The dense storage of a fallback could not be grown: the island is not factored.
    NoMemory,
}

/// What every island's assembly reads.
struct AssemblyInput<'s, 'a, W> {
    islands: &'s Islands,
    rows: &'s ContactRows,
    scatter: &'s [Scatter],
    system: &'s BlockSparseSystem<'a>,
    scale: f64,
    shift: f64,
    kind: Factorization,
    weight: &'s W,
}

/// The Newton matrix `A = M + s·Σᵢ Jᵢᵀ Wᵢ Jᵢ` of a [`BlockSparseSystem`], block diagonal by
/// islands (`docs/block_sparse.md` §3): each island's block is assembled from its trees' M blocks
/// and its contacts' Jacobian blocks, factored on its own and solved on its own. `Wᵢ` is a 3×3
/// weight per contact in the Jacobian's row order (normal, tangent 1, tangent 2); `s` a scale
/// (TAMSI's time step).
///
/// An island of fewer than [`BLOCK_SPARSE_MIN_DIM`] dofs, or of one tree, is factored dense; a
/// larger one with its block-sparse factorization, whose symbolic analysis is done at
/// [`prepare`](Self::prepare) and reused by every factorization of the solve (and across solves
/// while the island's pattern is unchanged). When that factorization meets a pivot its restricted
/// pivoting cannot handle, the island is factored dense instead, so the result never depends on
/// the back end beyond round-off.
///
/// Trees that no contact touches have `A_t = M_t`: [`solve_free_trees`](Self::solve_free_trees)
/// solves `M_t x_t = b_t` for them, and [`solve_in_place`](Self::solve_in_place) leaves their
/// entries at zero (their Newton step is zero once they are solved).
///
/// Storage grows to the largest islands seen and is kept: repeated solves of a problem no larger
/// than one seen before allocate nothing (a dense fallback of a large island allocates its dense
/// storage the first time).
#[derive(Debug, Clone, Default)]
pub struct BlockNewtonMatrix {
    islands: Islands,
    factors: Vec<IslandFactor>,
    /// Which factorization the islands hold (set by `assemble_and_factor`).
    kind: Option<Factorization>,
    /// One free tree's factorization at a time.
    free: Ldlt,
    /// Where the contacts' Jacobian blocks are in the packed J, and the kernels reading them.
    rows: ContactRows,
    /// An island's right-hand side in local numbering; permutation scratch of the LU solve.
    local: Vec<f64>,
    tmp: Vec<f64>,
    /// `scale·W_i·G_q` for one tree block of a contact (three rows of n_q values), or for every
    /// tree block of a run of free-body contacts (18 values each; [`weight_scratch_len`]).
    wg: Vec<f64>,
    /// Scratch of the sparse analysis: an island's tree sizes and coupled tree pairs (local).
    dims: Vec<usize>,
    pairs: Vec<(usize, usize)>,
    /// Per contact, where each of its `G_pᵀ Y_q` blocks goes in its island's storage, found once
    /// at [`prepare`](Self::prepare) (the lookups cost as much as the arithmetic on 6-dof trees).
    scatter: Vec<Scatter>,
    /// Scratch of [`Self::mark_first_writes`]: (tree pair, position) of an island's writers.
    writers: Vec<(usize, usize, usize)>,
    /// Parallel island phases ([`prepare_parallel`](Self::prepare_parallel)): the number of
    /// chunks (0: not prepared), their consecutive island ranges (`island_cuts[p]..
    /// island_cuts[p + 1]`), `0..=parts` and their scratch.
    parts: usize,
    island_cuts: Vec<usize>,
    /// The largest island's share of all islands' cost in the last `prepare_parallel_with` (1
    /// without islands): what bounds the gain of running them on threads.
    largest_share: f64,
    part_index: Vec<usize>,
    part_scratch: Vec<PartScratch>,
    /// The structure and kind the islands, back ends, analyses and [`Self::scatter`] were last
    /// prepared for (see [`prepare`](Self::prepare)).
    prepared: PreparedFor,
}

/// The layout's [`BlockSparseLayout::structure_id`] and the factorization kind that
/// [`BlockNewtonMatrix::prepare`] last did its structural work for. A clone forgets it: cloned
/// island factors drop their sparse analyses.
#[derive(Debug, Default)]
struct PreparedFor(Option<(u64, Factorization)>);

impl Clone for PreparedFor {
    fn clone(&self) -> Self {
        Self(None)
    }
}

/// Value array of a [`Dst`]: the dense matrix or the L panels.
const LOWER: u8 = 0;
/// The U panels of a sparse factorization.
const UPPER: u8 = 1;
/// No block (a symmetric factorization stores each off-diagonal pair once).
const SKIP: u8 = 2;

/// Where one block of a contact's terms is added: entry (r, c) at `off + r·rs + c·cs` of value
/// array `array` ([`LOWER`], [`UPPER`] or [`SKIP`]). `first`: this contact (or run) is the first
/// to write the block, an off-diagonal block of a sparse island's pattern whose values
/// [`SupernodalIsland::clear_fill`] left unspecified, so its terms are stored on a zero instead
/// of added to the stored value (the same operations on the same +0 the clearing wrote before,
/// so the same bits). The kernels take it as a constant (`FIRST`): the dense islands' code is
/// the one without it.
#[derive(Debug, Clone, Copy)]
struct Dst {
    array: u8,
    first: bool,
    off: usize,
    rs: usize,
    cs: usize,
}

/// A contact's destinations: block (p, q) of its trees (in its listed order) at `2p + q`; and,
/// for the first contact of a run of free-body contacts, the run's length (see [`MAX_RUN`]; 0:
/// not the first of a run, or not between free bodies).
#[derive(Debug, Clone, Copy)]
struct Scatter {
    dst: [Dst; 4],
    run: u8,
}

impl Default for Scatter {
    fn default() -> Self {
        Self { dst: [Dst { array: SKIP, first: false, off: 0, rs: 0, cs: 0 }; 4], run: 0 }
    }
}

/// At most this many contacts are summed into their blocks' columns in one pass
/// ([`assemble_free_body_run`]): a box–box contact has up to 8 points.
const MAX_RUN: usize = 8;

/// The cost of one island's share of a parallel island phase, by which
/// [`BlockNewtonMatrix::prepare_parallel_with`] cuts the islands into chunks of about equal cost:
/// `assembly·Σ (n_a + n_b)²` over its contacts, plus `dense·d³` (a dense factorization) or
/// `sparse·Σ n_t³ + sparse_assembly·Σ (n_a + n_b)²` (a sparse one), plus `square·d²`,
/// `contact` per contact and `island`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IslandCost {
    /// Per `(n_a + n_b)²` of a contact.
    pub assembly: f64,
    /// Per `d³` of a dense factorization (`d` the island's dofs).
    pub dense: f64,
    /// Per `n_t³` of a sparse factorization (`n_t` a tree's dofs).
    pub sparse: f64,
    /// Per `(n_a + n_b)²` of a contact, in a sparse factorization.
    pub sparse_assembly: f64,
    /// Per `d²`.
    pub square: f64,
    /// Per contact.
    pub contact: f64,
    /// Per island.
    pub island: f64,
}

impl IslandCost {
    /// Floating-point operation counts of the assembly, the factorization and the solves (the
    /// interior point's island phases).
    pub const FLOPS: Self = Self {
        assembly: 3.0,
        dense: 1.0 / 3.0,
        sparse: 1.0,
        sparse_assembly: 6.0,
        square: 2.0,
        contact: 0.0,
        island: 0.0,
    };

    /// Instructions of one island in TAMSI's fused iteration (contacts at v, residual, assembly,
    /// factorization, solve, `J Δv`, limiter): a least-squares fit to callgrind's instructions per
    /// chunk on pile50 t0.3, t1.0, t3.0 and the arm in 30 boxes, within 16 % on each of 43 chunks
    /// (`docs/performance.md` §8, "The 2-thread critical path"). The flop counts above left
    /// chunks of 40 k and 142 k instructions side by side on pile50 t1.0: they miss what every
    /// contact and island costs beside the arithmetic, and a sparse island's factorization
    /// costs 20 instructions per `n_t³`.
    pub const TAMSI_FUSED: Self = Self {
        assembly: 8.6,
        dense: 1.06,
        sparse: 21.2,
        sparse_assembly: 0.0,
        square: 16.1,
        contact: 234.0,
        island: 2040.0,
    };
}

/// Length of the contact-weight scratch `wg` for trees of at most `largest_tree` dofs: a
/// contact's blocks transposed (two trees, three rows each) and `Y` of one tree block (3 rows), or
/// the blocks and `Y` of both trees of a whole run of free-body contacts.
fn weight_scratch_len(largest_tree: usize) -> usize {
    (9 * largest_tree).max(72 * MAX_RUN)
}

impl BlockNewtonMatrix {
    /// An empty matrix.
    pub fn new() -> Self {
        Self::default()
    }

    /// Finds the islands of `system`, picks each island's back end and makes room for its
    /// factorization of `kind` (the sparse symbolic analysis included). Call once per solve,
    /// before [`assemble_and_factor`](Self::assemble_and_factor).
    ///
    /// All of it but the copy of the Jacobian blocks depends on the structure alone: when the
    /// layout's [`structure_id`](BlockSparseLayout::structure_id) and `kind` are those of the last
    /// prepare, it is kept (an engine's warm steps while the contact graph holds: a quarter of a
    /// live-loop step's instructions on the 50-box pile, `docs/performance.md` §3 "The live
    /// loop").
    pub fn prepare(
        &mut self,
        system: &BlockSparseSystem<'_>,
        kind: Factorization,
    ) -> Result<(), BlockSparseError> {
        let layout = system.layout();
        self.parts = 0;
        self.kind = None;
        let structure = (layout.structure_id(), kind);
        if self.prepared.0 == Some(structure) {
            return self.rows.prepare(system);
        }
        self.prepared.0 = None;
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
        try_grow(&mut self.wg, weight_scratch_len(largest_tree), 0.0, "contact weights")?;
        try_grow(&mut self.scatter, layout.num_contacts(), Scatter::default(), "contact destinations")?;
        let most = (0..count).map(|k| self.islands.contacts(k).len()).max().unwrap_or(0);
        self.writers
            .try_reserve(most)
            .map_err(|_| BlockSparseError::Allocation { what: "contact destinations", len: most })?;
        let failed = |len| BlockSparseError::Allocation { what: "a Newton matrix", len };
        self.free.try_reserve(largest_tree).map_err(|_| failed(largest_tree.saturating_mul(largest_tree)))?;
        for k in 0..count {
            let d = self.islands.dofs(k);
            let sparse = d >= BLOCK_SPARSE_MIN_DIM && self.islands.trees(k).len() > 1;
            let f = &mut self.factors[k];
            f.backend = if sparse { Backend::Sparse } else { Backend::Dense };
            if !sparse {
                // A dense island factorization holds n² values: grow them here, fallibly, never
                // in a solve.
                match kind {
                    Factorization::Lu => f.lu.try_reserve(d),
                    Factorization::Ldlt => f.ldlt.try_reserve(d),
                }
                .map_err(|_| failed(d.saturating_mul(d)))?;
                continue;
            }
            // The island's block pattern: its trees (local index order) and, per two-tree
            // contact, the pair it couples.
            self.dims.clear();
            self.pairs.clear();
            let trees = self.islands.trees(k);
            self.dims.try_reserve(trees.len()).map_err(|_| failed(trees.len()))?;
            self.dims.extend(trees.iter().map(|&t| layout.tree_dofs(t as usize)));
            let contacts = self.islands.contacts(k);
            self.pairs.try_reserve(contacts.len()).map_err(|_| failed(contacts.len()))?;
            for &i in contacts {
                if let (a, Some(b)) = layout.contact_trees(i as usize) {
                    self.pairs.push((self.islands.local_index(a), self.islands.local_index(b)));
                }
            }
            let analysis = match kind {
                Factorization::Lu => {
                    f.sparse_lu.get_or_insert_with(Default::default).analyze(&self.dims, &self.pairs)
                }
                Factorization::Ldlt => {
                    f.sparse_ldlt.get_or_insert_with(Default::default).analyze(&self.dims, &self.pairs)
                }
            };
            analysis.map_err(|_| failed(d))?;
        }
        self.map_contacts(system, kind)
            .map_err(|_| BlockSparseError::Allocation { what: "a Newton matrix", len: 0 })?;
        self.prepared.0 = Some(structure);
        Ok(())
    }

    /// Fills [`Self::scatter`]: for every contact and pair (p, q) of its trees, where `G_pᵀ Y_q`
    /// goes in its island's storage for factorizations of `kind` (dense: the padded LU storage
    /// or the LDLᵀ's, column-major; sparse: the analysed panels).
    fn map_contacts(
        &mut self,
        system: &BlockSparseSystem<'_>,
        kind: Factorization,
    ) -> Result<(), crate::linalg::SparseError> {
        let layout = system.layout();
        for k in 0..self.islands.count() {
            let n = self.islands.dofs(k);
            let f = &self.factors[k];
            for &i in self.islands.contacts(k) {
                let i = i as usize;
                let (a, b) = layout.contact_trees(i);
                let trees = [Some(a), b];
                let mut sc = Scatter::default();
                for (q, tq) in trees.iter().enumerate() {
                    let Some(tq) = *tq else { continue };
                    for (p, tp) in trees.iter().enumerate() {
                        let Some(tp) = *tp else { continue };
                        let (lp, lq) = (self.islands.local_index(tp), self.islands.local_index(tq));
                        sc.dst[2 * p + q] = match (f.backend, kind) {
                            (Backend::Dense, _) => {
                                let ld = if kind == Factorization::Lu { padded_dim(n) } else { n };
                                let (op, oq) = (self.islands.local_offset(tp), self.islands.local_offset(tq));
                                Dst { array: LOWER, first: false, off: oq * ld + op, rs: 1, cs: ld }
                            }
                            (Backend::Sparse, Factorization::Ldlt) if lp < lq => sc.dst[2 * p + q],
                            (Backend::Sparse, _) => {
                                let loc = match kind {
                                    Factorization::Lu => {
                                        f.sparse_lu.as_deref().expect("analysed").block_location(lp, lq)
                                    }
                                    Factorization::Ldlt => {
                                        f.sparse_ldlt.as_deref().expect("analysed").block_location(lp, lq)
                                    }
                                }?;
                                let array = if loc.upper_panel { UPPER } else { LOWER };
                                Dst { array, first: false, off: loc.offset, rs: loc.rs, cs: loc.cs }
                            }
                        };
                    }
                }
                self.scatter[i] = sc;
            }
            let sparse = f.backend == Backend::Sparse;
            self.find_runs(layout, k);
            if sparse {
                self.mark_first_writes(layout, k);
            }
        }
        Ok(())
    }

    /// Sets [`Dst::first`] on sparse island k's off-diagonal destinations where a contact (or a
    /// run, [`Self::find_runs`]) is the first, in the assembly's order, to write its tree pair's
    /// blocks: the assembly clears only the fill ([`SupernodalIsland::clear_fill`]), so the first
    /// terms of a block are stored, not added. (The diagonal blocks get M first.)
    fn mark_first_writes(&mut self, layout: &BlockSparseLayout, k: usize) {
        let contacts = self.islands.contacts(k);
        let writers = &mut self.writers;
        writers.clear();
        let mut s = 0;
        while let Some(&i) = contacts.get(s) {
            if let (a, Some(b)) = layout.contact_trees(i as usize) {
                let (a, b) = (self.islands.local_index(a), self.islands.local_index(b));
                writers.push((a.min(b), a.max(b), s));
            }
            s += (self.scatter[i as usize].run as usize).max(1);
        }
        // By pair, then by position: each pair's first writer leads its group.
        writers.sort_unstable();
        let mut last = None;
        for &(a, b, s) in writers.iter() {
            if last == Some((a, b)) {
                continue;
            }
            last = Some((a, b));
            for dst in &mut self.scatter[contacts[s] as usize].dst[1..3] {
                dst.first = dst.array != SKIP;
            }
        }
    }

    /// Marks island k's runs of free-body contacts in [`Self::scatter`]: consecutive contacts (in
    /// the island's order) between the same free bodies in the same order, whose blocks follow
    /// each other in the packed J, at most [`MAX_RUN`] of them. Engines list the
    /// points of one body pair together (MuJoCo's box–box contacts: 2–6 points on the scenes of
    /// `tests/data`), so a run's blocks are updated once per run instead of once per contact
    /// (`docs/performance.md` §3, sixth pass).
    fn find_runs(&mut self, layout: &BlockSparseLayout, k: usize) {
        let contacts = self.islands.contacts(k);
        let mut s = 0;
        while let Some(&i0) = contacts.get(s) {
            let i0 = i0 as usize;
            let d0 = *self.rows.desc(i0);
            if !(d0.n[0] == 6 && (d0.n[1] == 6 || d0.n[1] == 0)) {
                self.scatter[i0].run = 0;
                s += 1;
                continue;
            }
            let stride = 3 * (d0.n[0] + d0.n[1]);
            let mut len = 1;
            while let Some(&i) = contacts.get(s + len) {
                let i = i as usize;
                if len == MAX_RUN
                    || layout.contact_trees(i) != layout.contact_trees(i0)
                    || self.rows.desc(i).off != d0.off + len * stride
                {
                    break;
                }
                self.scatter[i].run = 0;
                len += 1;
            }
            self.scatter[i0].run = len as u8;
            s += len;
        }
    }

    /// The islands found by the last [`prepare`](Self::prepare).
    pub fn islands(&self) -> &Islands {
        &self.islands
    }

    /// The contacts' Jacobian blocks of the system last prepared, for the products `J v` and
    /// `Jᵀ f`.
    pub fn rows(&self) -> &ContactRows {
        &self.rows
    }

    /// Assembles `M + scale·Σᵢ Jᵢᵀ Wᵢ Jᵢ` island by island, with `weight(i)` contact i's `Wᵢ`
    /// (row-major 3×3 in the order normal, tangent 1, tangent 2), and factors each island with
    /// `kind` (which must be the kind given to [`prepare`](Self::prepare)). Returns `false` when
    /// some island's LDLᵀ failed (its factors are still usable, as the dense path's are); LU
    /// never reports failure.
    #[inline(always)]
    pub fn assemble_and_factor(
        &mut self,
        system: &BlockSparseSystem<'_>,
        scale: f64,
        kind: Factorization,
        weight: impl Fn(usize) -> [[f64; 3]; 3],
    ) -> bool {
        self.assemble_shifted_and_factor(system, scale, 0.0, kind, weight)
    }

    /// [`assemble_and_factor`](Self::assemble_and_factor) of `M + shift·I + scale·Σᵢ Jᵢᵀ Wᵢ Jᵢ`:
    /// the interior point's Dojo iteration regularizes M by `REG·I` (`docs/ipm.md` §2.1). Free
    /// trees keep their `M_t`.
    #[inline(always)]
    pub fn assemble_shifted_and_factor(
        &mut self,
        system: &BlockSparseSystem<'_>,
        scale: f64,
        shift: f64,
        kind: Factorization,
        weight: impl Fn(usize) -> [[f64; 3]; 3],
    ) -> bool {
        self.rows.begin_assembly(system);
        let Self { islands, factors, rows, wg, scatter, .. } = self;
        let input = AssemblyInput { islands, rows, scatter, system, scale, shift, kind, weight: &weight };
        let mut ok = true;
        for (k, f) in factors[..islands.count()].iter_mut().enumerate() {
            match factor_island(f, k, &input, wg) {
                Factored::Ok => {}
                Factored::Failed => ok = false,
                Factored::NoMemory => return false,
            }
        }
        self.kind = Some(kind);
        ok
    }

    /// Makes room for parallel island phases in `parts` chunks (call after
    /// [`prepare`](Self::prepare), which forgets it; see `crate::parallel::chunk_count`): cuts the
    /// islands into `parts` consecutive ranges of about equal work (assembly `∝ Σ (n_a + n_b)²` over contacts; factorization `∝ d³`
    /// dense, `∝ Σ n_t³` plus the coupled pairs sparse) and grows every island's solution vector
    /// and every chunk's scratch. Nothing is allocated for a problem no larger than one
    /// seen before.
    pub fn prepare_parallel(
        &mut self,
        system: &BlockSparseSystem<'_>,
        parts: usize,
    ) -> Result<(), BlockSparseError> {
        self.prepare_parallel_with(system, parts, &IslandCost::FLOPS)
    }

    /// [`prepare_parallel`](Self::prepare_parallel) with the cuts balanced by the island cost
    /// `cost` (TAMSI's fused iteration: [`IslandCost::TAMSI_FUSED`]).
    pub fn prepare_parallel_with(
        &mut self,
        system: &BlockSparseSystem<'_>,
        parts: usize,
        cost: &IslandCost,
    ) -> Result<(), BlockSparseError> {
        let weights = *cost;
        let layout = system.layout();
        let parts = parts.max(1);
        let count = self.islands.count();
        let what = "parallel island scratch";
        try_grow(&mut self.island_cuts, parts + 1, 0, what)?;
        try_grow(&mut self.part_index, parts + 1, 0, what)?;
        try_grow(&mut self.part_scratch, parts, PartScratch::default(), what)?;
        let largest_tree = (0..layout.num_trees()).map(|t| layout.tree_dofs(t)).max().unwrap_or(0);
        let largest_island = (0..count).map(|k| self.islands.dofs(k)).max().unwrap_or(0);
        for sc in &mut self.part_scratch[..parts] {
            try_grow(&mut sc.wg, weight_scratch_len(largest_tree), 0.0, what)?;
            try_grow(&mut sc.tmp, largest_island, 0.0, what)?;
        }
        for (k, f) in self.factors[..count].iter_mut().enumerate() {
            try_grow(&mut f.x, self.islands.dofs(k), 0.0, what)?;
        }
        for (p, x) in self.part_index[..parts + 1].iter_mut().enumerate() {
            *x = p;
        }
        let (islands, factors) = (&self.islands, &self.factors);
        let cost = |k: usize| {
            let d = islands.dofs(k) as f64;
            let assembly: f64 = islands
                .contacts(k)
                .iter()
                .map(|&i| {
                    let (a, b) = layout.contact_trees(i as usize);
                    let n = layout.tree_dofs(a) + b.map_or(0, |b| layout.tree_dofs(b));
                    (n * n) as f64
                })
                .sum();
            let factor = if factors[k].backend == Backend::Sparse {
                let trees: f64 =
                    islands.trees(k).iter().map(|&t| (layout.tree_dofs(t as usize) as f64).powi(3)).sum();
                weights.sparse * trees + weights.sparse_assembly * assembly
            } else {
                weights.dense * d * d * d
            };
            let contacts = islands.contacts(k).len() as f64;
            weights.assembly * assembly
                + factor
                + weights.square * d * d
                + weights.contact * contacts
                + weights.island
        };
        balanced_cuts(count, cost, &mut self.island_cuts[..parts + 1]);
        let (total, largest) =
            (0..count).map(&cost).fold((0.0, 0.0), |(t, m): (f64, f64), c| (t + c, m.max(c)));
        self.largest_share = if total > 0.0 { largest / total } else { 1.0 };
        self.parts = parts;
        Ok(())
    }

    /// [`assemble_shifted_and_factor`](Self::assemble_shifted_and_factor) on the participants of
    /// `pool` (the islands of one chunk one after another), when
    /// [`prepare_parallel`](Self::prepare_parallel) was called and there are at least two
    /// islands; else on this thread. Every island gets the same operations either way, so the
    /// factors are the same bits. Inlined so that the sequential path compiles inside the
    /// caller's SIMD dispatch: a separate function is compiled for the baseline, where the
    /// assembly's `f64::mul_add` is a call to libm's `fma` (issue 29: the assembly was a quarter of
    /// an interior-point solve on pile50 t1.0, half of it in `fma`).
    #[inline(always)]
    pub fn assemble_shifted_and_factor_on(
        &mut self,
        pool: Option<&WorkerPool>,
        system: &BlockSparseSystem<'_>,
        scale: f64,
        shift: f64,
        kind: Factorization,
        weight: impl Fn(usize) -> [[f64; 3]; 3] + Sync,
    ) -> bool {
        match pool.filter(|p| self.runs_parallel(p)) {
            Some(pool) => self.island_phase(pool, system, Some((scale, shift, kind, &weight)), None),
            // Inside the SIMD dispatch: compiled for the baseline, every `mul_add` of the
            // assembly would be a call to libm's `fma` (issue 29 profile: 2× the instructions).
            None => dispatch_fn(
                #[inline(always)]
                || self.assemble_shifted_and_factor(system, scale, shift, kind, weight),
            ),
        }
    }

    /// [`assemble_and_factor`](Self::assemble_and_factor) then [`solve_in_place`](Self::solve_in_place)
    /// in one parallel phase when `pool` serves (see
    /// [`assemble_shifted_and_factor_on`](Self::assemble_shifted_and_factor_on)).
    pub fn factor_and_solve_on(
        &mut self,
        pool: Option<&WorkerPool>,
        system: &BlockSparseSystem<'_>,
        scale: f64,
        kind: Factorization,
        weight: impl Fn(usize) -> [[f64; 3]; 3] + Sync,
        b: &mut [f64],
    ) -> bool {
        match pool.filter(|p| self.runs_parallel(p)) {
            Some(pool) => self.island_phase(pool, system, Some((scale, 0.0, kind, &weight)), Some(b)),
            None => dispatch_fn(
                #[inline(always)]
                || {
                    let factored = self.assemble_and_factor(system, scale, kind, weight);
                    self.solve_in_place(system, b);
                    factored
                },
            ),
        }
    }

    /// [`solve_in_place`](Self::solve_in_place) on the participants of `pool` when it serves (see
    /// [`assemble_shifted_and_factor_on`](Self::assemble_shifted_and_factor_on)); inlined for the
    /// same reason.
    #[inline(always)]
    pub fn solve_in_place_on(
        &mut self,
        pool: Option<&WorkerPool>,
        system: &BlockSparseSystem<'_>,
        b: &mut [f64],
    ) {
        match pool.filter(|p| self.runs_parallel(p)) {
            Some(pool) => {
                self.island_phase::<fn(usize) -> [[f64; 3]; 3]>(pool, system, None, Some(b));
            }
            None => dispatch_fn(
                #[inline(always)]
                || self.solve_in_place(system, b),
            ),
        }
    }

    /// Whether the island phases run on `pool`: prepared, two islands or more.
    pub fn runs_parallel(&self, pool: &WorkerPool) -> bool {
        self.parts >= 2 && pool.threads() >= 2 && self.islands.count() >= 2
    }

    /// The largest island's share (0 to 1) of the islands' total cost by the weights of the last
    /// [`prepare_parallel_with`](Self::prepare_parallel_with); 1 without islands. An island runs
    /// on one thread, so the island phases on threads take at least this share of their
    /// one-thread time.
    pub fn largest_island_share(&self) -> f64 {
        self.largest_share
    }

    /// The islands' chunks of the last [`prepare_parallel`](Self::prepare_parallel): chunk p holds
    /// islands `cuts[p]..cuts[p + 1]` (`parts + 1` bounds; `[0]` when not prepared).
    pub fn island_cuts(&self) -> &[usize] {
        &self.island_cuts[..self.parts + 1]
    }

    /// One parallel phase over the chunks of islands (see
    /// [`prepare_parallel`](Self::prepare_parallel); call only when
    /// [`runs_parallel`](Self::runs_parallel)): `task` gets each chunk once, on whichever
    /// participant claims it, and solves the chunk's islands with [`IslandChunk::solve`] (each
    /// island assembled with `scale` and factored with `kind`, as
    /// [`assemble_and_factor`](Self::assemble_and_factor) would). The task itself writes its
    /// islands' solutions where they are needed (TAMSI's fused iteration writes them into Δv
    /// from the chunk: no write-back on this thread after the phase, `docs/performance.md` §8).
    /// Returns `false` when some island's LDLᵀ failed or could not be factored.
    #[inline(always)]
    pub fn islands_on<T: Fn(IslandChunk<'_, '_>) + Sync>(
        &mut self,
        pool: &WorkerPool,
        system: &BlockSparseSystem<'_>,
        scale: f64,
        kind: Factorization,
        task: &T,
    ) -> bool {
        self.rows.begin_assembly(system);
        self.run_chunks(pool, system, (scale, 0.0, kind), task).unwrap_or(false)
    }

    /// One parallel phase over the chunks of islands (assembly `M + shift·I + scale·Σ…`, factors
    /// of `kind`): `task` per chunk. Returns `None` when some island could not be factored (no
    /// memory for a dense fallback), else whether every island's LDLᵀ succeeded.
    #[inline(always)]
    fn run_chunks<T: Fn(IslandChunk<'_, '_>) + Sync>(
        &mut self,
        pool: &WorkerPool,
        system: &BlockSparseSystem<'_>,
        (scale, shift, kind): (f64, f64, Factorization),
        task: &T,
    ) -> Option<bool> {
        let parts = self.parts;
        let count = self.islands.count();
        let failed = AtomicBool::new(false);
        let no_memory = AtomicBool::new(false);
        {
            let Self { islands, factors, rows, scatter, island_cuts, part_index, part_scratch, .. } = self;
            let cuts = &island_cuts[..parts + 1];
            let factors = Parts::new(&mut factors[..count], cuts, 1);
            let scratch = Parts::new(&mut part_scratch[..parts], &part_index[..parts + 1], 1);
            let (islands, rows, scatter) = (&*islands, &*rows, &scatter[..]);
            let (failed, no_memory) = (&failed, &no_memory);
            pool.run(parts, &|p| {
                task(IslandChunk {
                    index: p,
                    first: cuts[p],
                    factors: factors.take(p),
                    scratch: &mut scratch.take(p)[0],
                    islands,
                    rows,
                    scatter,
                    system,
                    scale,
                    shift,
                    kind,
                    failed,
                    no_memory,
                })
            });
        }
        if no_memory.load(Ordering::Relaxed) {
            return None;
        }
        self.kind = Some(kind);
        Some(!failed.load(Ordering::Relaxed))
    }

    /// The islands' solutions of the last [`run_chunks`](Self::run_chunks) into `b` (nv), the
    /// free trees' entries zeroed (as [`solve_in_place`](Self::solve_in_place) leaves them).
    fn write_back(&self, system: &BlockSparseSystem<'_>, b: &mut [f64]) {
        let layout = system.layout();
        for (k, f) in self.factors[..self.islands.count()].iter().enumerate() {
            scatter_back(&self.islands, layout, k, &f.x[..self.islands.dofs(k)], b);
        }
        for &t in self.islands.free_trees() {
            b[layout.tree_range(t as usize)].fill(0.0);
        }
    }

    /// One parallel phase over the islands: each chunk's thread factors (with `factor`) and/or
    /// solves (with `b`, gathered into the islands' own vectors) the chunk's range of islands; then this thread
    /// writes the solutions into `b` and zeros the free trees' entries. Returns what
    /// [`assemble_shifted_and_factor`](Self::assemble_shifted_and_factor) returns (`true` without
    /// `factor`).
    fn island_phase<W: Fn(usize) -> [[f64; 3]; 3] + Sync>(
        &mut self,
        pool: &WorkerPool,
        system: &BlockSparseSystem<'_>,
        factor: Option<(f64, f64, Factorization, &W)>,
        b: Option<&mut [f64]>,
    ) -> bool {
        let layout = system.layout();
        let (scale, shift, kind) = match factor {
            Some((scale, shift, kind, _)) => (scale, shift, kind),
            None => {
                (0.0, 0.0, self.kind.expect("BlockNewtonMatrix::solve_in_place before assemble_and_factor"))
            }
        };
        let rhs = b.as_deref();
        let task = |mut chunk: IslandChunk<'_, '_>| {
            dispatch_fn(
                #[inline(always)]
                || {
                    let islands = chunk.islands;
                    for k in chunk.range() {
                        if let Some((.., weight)) = factor
                            && !chunk.factor(k, weight)
                        {
                            return;
                        }
                        if let Some(b) = rhs {
                            chunk.solve_local(k, |x| gather(islands, layout, k, b, x));
                        }
                    }
                },
            )
        };
        if factor.is_some() {
            self.rows.begin_assembly(system);
        }
        let Some(factored) = self.run_chunks(pool, system, (scale, shift, kind), &task) else {
            return false;
        };
        if let Some(b) = b {
            self.write_back(system, b);
        }
        factored
    }

    /// Assembles the matrix of [`assemble_and_factor`](Self::assemble_and_factor) without
    /// factoring it and writes it into `out` (nv×nv, dense): the islands' blocks, the free trees'
    /// M blocks, zeros elsewhere. For checks and debugging; grows dense storage for every island.
    pub fn write_dense(
        &mut self,
        system: &BlockSparseSystem<'_>,
        scale: f64,
        weight: impl Fn(usize) -> [[f64; 3]; 3],
        out: &mut DMatrixViewMut<'_, f64>,
    ) -> Result<(), BlockSparseError> {
        let layout = system.layout();
        out.fill(0.0);
        self.rows.begin_assembly(system);
        for k in 0..self.islands.count() {
            let n = self.islands.dofs(k);
            let Self { islands, factors, rows, wg, .. } = self;
            let lu = &mut factors[k].lu;
            lu.try_reserve(n).map_err(|_| BlockSparseError::Allocation {
                what: "a Newton matrix",
                len: n.saturating_mul(n),
            })?;
            let a = lu.storage_mut(n);
            a.fill(0.0);
            let mut target = DenseTarget { a, ld: n, islands, k };
            assemble_island(&mut target, islands, k, system, rows, wg, scale, 0.0, false, &weight);
            let a = target.a;
            for &tq in islands.trees(k) {
                for &tp in islands.trees(k) {
                    let (rq, rp) = (layout.tree_range(tq as usize), layout.tree_range(tp as usize));
                    let (oq, op) = (islands.local_offset(tq as usize), islands.local_offset(tp as usize));
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
        Ok(())
    }

    /// Solves `A x = b` in place on the islands' dofs with the factors of the last
    /// [`assemble_and_factor`](Self::assemble_and_factor); the entries of free trees are set to 0.
    /// `b` has nv entries.
    #[inline(always)]
    pub fn solve_in_place(&mut self, system: &BlockSparseSystem<'_>, b: &mut [f64]) {
        self.solve_islands(system, b, false);
    }

    /// Solves `Aᵀ x = b` in place on the islands' dofs with the same factors as
    /// [`solve_in_place`](Self::solve_in_place) (adjoint solves); the entries of free trees are
    /// set to 0. `b` has nv entries.
    pub fn solve_transposed_in_place(&mut self, system: &BlockSparseSystem<'_>, b: &mut [f64]) {
        self.solve_islands(system, b, true);
    }

    /// The islands' solves of [`solve_in_place`](Self::solve_in_place) (`transposed`: of
    /// [`solve_transposed_in_place`](Self::solve_transposed_in_place)) on this thread.
    #[inline(always)]
    fn solve_islands(&mut self, system: &BlockSparseSystem<'_>, b: &mut [f64], transposed: bool) {
        let layout = system.layout();
        let kind = self.kind.expect("BlockNewtonMatrix::solve_in_place before assemble_and_factor");
        for k in 0..self.islands.count() {
            let n = self.islands.dofs(k);
            let local = &mut self.local[..n];
            gather(&self.islands, layout, k, b, local);
            solve_island(&mut self.factors[k], kind, local, &mut self.tmp[..n], transposed);
            scatter_back(&self.islands, layout, k, local, b);
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
            ok &= Self::solve_free_tree(&mut self.free, system, t, &mut b[layout.tree_range(t)]);
        }
        ok
    }

    /// [`solve_free_trees`](Self::solve_free_trees) for the one free tree `t` (`b`: its dofs),
    /// factoring in `ldlt`: for callers that split the free trees over threads, each with its own
    /// `ldlt` (TAMSI's start, `docs/performance.md` §8). `false` when M_t could not be factored.
    pub fn solve_free_tree(ldlt: &mut Ldlt, system: &BlockSparseSystem<'_>, t: usize, b: &mut [f64]) -> bool {
        ldlt.matrix_mut(b.len()).copy_from(&system.m_block(t));
        let ok = ldlt.factor().is_ok();
        ldlt.solve_in_place(b);
        ok
    }
}

/// One chunk of consecutive islands in [`BlockNewtonMatrix::islands_on`]: their factorizations,
/// the chunk's scratch and what the assembly reads.
pub struct IslandChunk<'s, 'a> {
    index: usize,
    first: usize,
    factors: &'s mut [IslandFactor],
    scratch: &'s mut PartScratch,
    islands: &'s Islands,
    rows: &'s ContactRows,
    scatter: &'s [Scatter],
    system: &'s BlockSparseSystem<'a>,
    scale: f64,
    shift: f64,
    kind: Factorization,
    failed: &'s AtomicBool,
    no_memory: &'s AtomicBool,
}

impl<'s> IslandChunk<'s, '_> {
    /// The chunk's index (`0..parts`).
    #[inline(always)]
    pub fn index(&self) -> usize {
        self.index
    }

    /// The chunk's islands.
    #[inline(always)]
    pub fn range(&self) -> std::ops::Range<usize> {
        self.first..self.first + self.factors.len()
    }

    /// The islands of the prepared system.
    #[inline(always)]
    pub fn islands(&self) -> &'s Islands {
        self.islands
    }

    /// The contacts' Jacobian blocks ([`BlockNewtonMatrix::rows`]).
    #[inline(always)]
    pub fn rows(&self) -> &'s ContactRows {
        self.rows
    }

    /// Island k (of this chunk): `fill` writes its right-hand side in the island's local
    /// numbering into the island's own vector, then the island's matrix is assembled with
    /// `weight`, factored and solved there in place (the operations of
    /// [`BlockNewtonMatrix::factor_and_solve_on`]). Returns the solution (local numbering).
    #[inline(always)]
    pub fn solve<W: Fn(usize) -> [[f64; 3]; 3]>(
        &mut self,
        k: usize,
        weight: &W,
        fill: impl FnOnce(&mut [f64]),
    ) -> &[f64] {
        let n = self.islands.dofs(k);
        fill(&mut self.factors[k - self.first].x[..n]);
        if self.factor(k, weight) {
            self.solve_local(k, |_| {});
        }
        &self.factors[k - self.first].x[..n]
    }

    /// Assembles island k's matrix with `weight` and factors it, recording a failure; `false`
    /// when it could not be factored (no memory for a dense fallback).
    #[inline(always)]
    fn factor<W: Fn(usize) -> [[f64; 3]; 3]>(&mut self, k: usize, weight: &W) -> bool {
        let input = AssemblyInput {
            islands: self.islands,
            rows: self.rows,
            scatter: self.scatter,
            system: self.system,
            scale: self.scale,
            shift: self.shift,
            kind: self.kind,
            weight,
        };
        match factor_island(&mut self.factors[k - self.first], k, &input, &mut self.scratch.wg) {
            Factored::Ok => true,
            Factored::Failed => {
                self.failed.store(true, Ordering::Relaxed);
                true
            }
            Factored::NoMemory => {
                self.no_memory.store(true, Ordering::Relaxed);
                false
            }
        }
    }

    /// `fill` writes island k's right-hand side (local numbering) into its own vector, which is
    /// then solved in place with the island's factors.
    #[inline(always)]
    fn solve_local(&mut self, k: usize, fill: impl FnOnce(&mut [f64])) {
        let n = self.islands.dofs(k);
        let f = &mut self.factors[k - self.first];
        let mut x = std::mem::take(&mut f.x);
        fill(&mut x[..n]);
        solve_island(f, self.kind, &mut x[..n], &mut self.scratch.tmp[..n], false);
        f.x = x;
    }
}

/// Where an island's Newton matrix is assembled: for the island's trees of local indices (p, q),
/// block (p, q) as raw storage, a slice starting at its (0, 0) entry with its row and column
/// strides.
trait BlockTarget {
    fn block(&mut self, p: usize, q: usize) -> (&mut [f64], usize, usize);
}

/// A dense column-major island matrix (leading dimension `ld`).
struct DenseTarget<'a> {
    a: &'a mut [f64],
    ld: usize,
    islands: &'a Islands,
    k: usize,
}

impl BlockTarget for DenseTarget<'_> {
    #[inline(always)]
    fn block(&mut self, p: usize, q: usize) -> (&mut [f64], usize, usize) {
        let trees = self.islands.trees(self.k);
        let p_off = self.islands.local_offset(trees[p] as usize);
        let q_off = self.islands.local_offset(trees[q] as usize);
        (&mut self.a[q_off * self.ld + p_off..], 1, self.ld)
    }
}

/// A supernodal factorization (LU or LDLᵀ) that an island is assembled into and factored by.
trait SupernodalIsland: BlockTarget {
    fn clear_fill(&mut self);
    fn values_mut(&mut self) -> (&mut [f64], &mut [f64]);
    fn factor(&mut self) -> bool;
}

macro_rules! supernodal_island {
    ($($t:ty),*) => {$(
        impl BlockTarget for $t {
            #[inline(always)]
            fn block(&mut self, p: usize, q: usize) -> (&mut [f64], usize, usize) {
                self.block_slice_mut(p, q).expect("every contact's tree pair is in the analysed pattern")
            }
        }

        impl SupernodalIsland for $t {
            #[inline(always)]
            fn clear_fill(&mut self) {
                <$t>::clear_fill(self)
            }
            #[inline(always)]
            fn values_mut(&mut self) -> (&mut [f64], &mut [f64]) {
                <$t>::values_mut(self)
            }
            #[inline(always)]
            fn factor(&mut self) -> bool {
                <$t>::factor(self).is_ok()
            }
        }
    )*};
}
supernodal_island!(BlockSparseLu, BlockSparseLdlt);

/// Assembles island k's Newton matrix into its supernodal factorization's storage and factors
/// it; false when the factorization's restricted pivoting failed.
#[inline(always)]
fn assemble_and_factor_sparse<W: Fn(usize) -> [[f64; 3]; 3]>(
    target: &mut impl SupernodalIsland,
    k: usize,
    input: &AssemblyInput<'_, '_, W>,
    wg: &mut [f64],
) -> bool {
    let AssemblyInput { islands, rows, scatter, system, scale, shift, weight, .. } = *input;
    // Only the fill is cleared: the mass blocks and the contacts' first terms are stored (the
    // diagonal blocks by `assemble_mass`, the others by their first contact, `Dst::first`).
    target.clear_fill();
    assemble_mass::<true>(target, islands, k, system, shift);
    let (l, u) = target.values_mut();
    assemble_contacts([l, u], islands.contacts(k), scatter, rows, system.j_values(), wg, scale, weight);
    target.factor()
}

/// Assembles island k's Newton matrix into its storage and factors it (the body of
/// [`BlockNewtonMatrix::assemble_shifted_and_factor`] for one island; `wg`: the contact-weight
/// scratch).
#[inline(always)]
fn factor_island<W: Fn(usize) -> [[f64; 3]; 3]>(
    f: &mut IslandFactor,
    k: usize,
    input: &AssemblyInput<'_, '_, W>,
    wg: &mut [f64],
) -> Factored {
    let AssemblyInput { islands, rows, scatter, system, scale, shift, kind, weight } = *input;
    let n = islands.dofs(k);
    let checked = |ok: bool| if ok { Factored::Ok } else { Factored::Failed };
    f.dense_fallback = false;
    let contacts = islands.contacts(k);
    let sparse_factored = match (f.backend, kind) {
        (Backend::Dense, _) => {
            // The mapped path: the contacts' destinations were found at `prepare`.
            let (a, ld) = match kind {
                Factorization::Lu => (f.lu.padded_storage_mut(n), padded_dim(n)),
                Factorization::Ldlt => (f.ldlt.storage_mut(n), n),
            };
            assemble_mass_dense(a, ld, islands, k, system, shift);
            assemble_contacts([a, &mut []], contacts, scatter, rows, system.j_values(), wg, scale, weight);
            return match kind {
                Factorization::Lu => {
                    f.lu.factor();
                    Factored::Ok
                }
                Factorization::Ldlt => checked(f.ldlt.factor().is_ok()),
            };
        }
        (Backend::Sparse, Factorization::Lu) => {
            assemble_and_factor_sparse(f.sparse_lu.as_deref_mut().expect("prepared sparse LU"), k, input, wg)
        }
        (Backend::Sparse, Factorization::Ldlt) => assemble_and_factor_sparse(
            f.sparse_ldlt.as_deref_mut().expect("prepared sparse LDLT"),
            k,
            input,
            wg,
        ),
    };
    if sparse_factored {
        return Factored::Ok;
    }
    // The restricted pivoting of the sparse factorization failed: factor this island dense (the
    // dense storage is grown here, the first time only).
    f.dense_fallback = true;
    let grown = match kind {
        Factorization::Lu => f.lu.try_reserve(n),
        Factorization::Ldlt => f.ldlt.try_reserve(n),
    };
    if grown.is_err() {
        return Factored::NoMemory;
    }
    let a = match kind {
        Factorization::Lu => f.lu.storage_mut(n),
        Factorization::Ldlt => f.ldlt.storage_mut(n),
    };
    a.fill(0.0);
    let mut target = DenseTarget { a, ld: n, islands, k };
    assemble_island(&mut target, islands, k, system, rows, wg, scale, shift, false, weight);
    match kind {
        Factorization::Lu => {
            f.lu.factor();
            Factored::Ok
        }
        Factorization::Ldlt => checked(f.ldlt.factor().is_ok()),
    }
}

/// Island k's entries of `b` (nv) into `local` (its local numbering).
#[inline(always)]
fn gather(islands: &Islands, layout: &BlockSparseLayout, k: usize, b: &[f64], local: &mut [f64]) {
    for &t in islands.trees(k) {
        let off = islands.local_offset(t as usize);
        let r = layout.tree_range(t as usize);
        local[off..off + r.len()].copy_from_slice(&b[r]);
    }
}

/// `local` (island k's local numbering) back into its entries of `b` (nv).
#[inline(always)]
fn scatter_back(islands: &Islands, layout: &BlockSparseLayout, k: usize, local: &[f64], b: &mut [f64]) {
    for &t in islands.trees(k) {
        let off = islands.local_offset(t as usize);
        let r = layout.tree_range(t as usize);
        let len = r.len();
        b[r].copy_from_slice(&local[off..off + len]);
    }
}

/// Solves with island factors `f` of `kind` in place on `x` (local numbering; `tmp`: n scratch),
/// transposed or not.
#[inline(always)]
fn solve_island(f: &mut IslandFactor, kind: Factorization, x: &mut [f64], tmp: &mut [f64], transposed: bool) {
    let sparse = f.backend == Backend::Sparse && !f.dense_fallback;
    match (sparse, kind, transposed) {
        (false, Factorization::Lu, false) => f.lu.solve_in_place(x, tmp),
        (false, Factorization::Lu, true) => f.lu.solve_transposed_in_place(x, tmp),
        (false, Factorization::Ldlt, false) => f.ldlt.solve_in_place(x),
        (false, Factorization::Ldlt, true) => f.ldlt.solve_transposed_in_place(x),
        (true, Factorization::Lu, _) => {
            let lu = f.sparse_lu.as_deref_mut().expect("prepared sparse LU");
            let solved = if transposed { lu.solve_transposed_in_place(x) } else { lu.solve_in_place(x) };
            solved.expect("a factored island of the right size")
        }
        (true, Factorization::Ldlt, _) => {
            let ldlt = f.sparse_ldlt.as_deref_mut().expect("prepared sparse LDLT");
            let solved = if transposed { ldlt.solve_transposed_in_place(x) } else { ldlt.solve_in_place(x) };
            solved.expect("a factored island of the right size")
        }
    }
}

/// Adds island k's Newton matrix `M + shift·I + scale·Σᵢ Jᵢᵀ Wᵢ Jᵢ` into `target`. With `lower_only` (a
/// symmetric factorization that stores each off-diagonal pair once) only blocks with p ≥ q receive
/// contact terms.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn assemble_island(
    target: &mut impl BlockTarget,
    islands: &Islands,
    k: usize,
    system: &BlockSparseSystem<'_>,
    rows: &ContactRows,
    wg: &mut [f64],
    scale: f64,
    shift: f64,
    lower_only: bool,
    weight: &impl Fn(usize) -> [[f64; 3]; 3],
) {
    assemble_mass::<false>(target, islands, k, system, shift);
    for &i in islands.contacts(k) {
        let i = i as usize;
        let w = weight(i);
        let (a, b) = system.layout().contact_trees(i);
        let d = *rows.desc(i);
        // The contact's blocks as rows (copied, or transposed into the scratch), `Y` after.
        let (gt, wg) = wg.split_at_mut(3 * (d.n[0] + d.n[1]));
        let (ga, gb) = gt.split_at_mut(3 * d.n[0]);
        let j = system.j_values();
        let blocks = [
            Some((a, block_rows(rows, j, d.off, ga))),
            b.map(|b| (b, block_rows(rows, j, d.off + 3 * d.n[0], gb))),
        ];
        for (q, gq) in blocks.into_iter().flatten() {
            let (y0, y1, y2) = weigh(wg, gq, &w, scale);
            let qi = islands.local_index(q);
            for (p, gp) in blocks.into_iter().flatten() {
                let pi = islands.local_index(p);
                if lower_only && pi < qi {
                    continue;
                }
                let (a, rs, cs) = target.block(pi, qi);
                add_block::<false>(a, rs, cs, gp, [&*y0, &*y1, &*y2]);
            }
        }
    }
}

/// The rows of the block at `off` in the packed J `j` (3×n column-major, n = `out.len() / 3`):
/// from the solve's transposed copy when it has one, else transposed into `out`
/// ([`ContactRows::begin_assembly`]).
#[inline(always)]
fn block_rows<'o>(rows: &'o ContactRows, j: &[f64], off: usize, out: &'o mut [f64]) -> Rows<'o> {
    let len = out.len();
    if let Some(r) = rows.copied_rows(off, len) {
        return Rows::new(r);
    }
    transpose_into(&j[off..off + len], out);
    Rows::new(out)
}

/// Adds `M_t + shift·I` of island k's trees into their diagonal blocks of `target`; with
/// `FIRST`, onto a zero instead of the stored values (the blocks' values are unspecified: a
/// sparse island after [`SupernodalIsland::clear_fill`]). Either way an entry is
/// `(b + m) + shift` on the diagonal and `b + m` off it, `b` the stored value or +0 (so a `−0`
/// of M gives the `+0` the accumulation into a cleared block gave).
#[inline(always)]
fn assemble_mass<const FIRST: bool>(
    target: &mut impl BlockTarget,
    islands: &Islands,
    k: usize,
    system: &BlockSparseSystem<'_>,
    shift: f64,
) {
    let layout = system.layout();
    for &t in islands.trees(k) {
        let t = t as usize;
        let p = islands.local_index(t);
        let (a, rs, cs) = target.block(p, p);
        let m = system.m_values(t);
        let nt = layout.tree_dofs(t);
        if let (6, 1, Ok(m)) = (nt, rs, <&[f64; 36]>::try_from(m)) {
            // A free body into a column-major block: whole columns (vectorized).
            for c in 0..6 {
                let col: &mut [f64; 6] = (&mut a[c * cs..c * cs + 6]).try_into().unwrap();
                let mut x = if FIRST { [0.0; 6] } else { *col };
                for r in 0..6 {
                    x[r] += m[6 * c + r];
                }
                x[c] += shift;
                *col = x;
            }
            continue;
        }
        for c in 0..nt {
            for (r, &x) in m[c * nt..(c + 1) * nt].iter().enumerate() {
                let b = &mut a[r * rs + c * cs];
                *b = if FIRST { 0.0 } else { *b } + x;
            }
            a[c * rs + c * cs] += shift;
        }
    }
}

/// Writes every entry of island k's dense storage (`ld·n`, column-major, rows `n..ld` the
/// padding): `M_t + shift·I` in the trees' diagonal blocks, zero everywhere else, each entry
/// stored once. The same values, bit for bit, as clearing the storage and then
/// [`assemble_mass`] (a diagonal entry is `(0 + m) + shift`, an off-diagonal one of the block
/// `0 + m`), without the separate clearing pass and the reload of the cleared block that
/// [`assemble_mass`]'s accumulation did (issue 29, `docs/performance.md` §3 eighth pass).
#[inline(always)]
fn assemble_mass_dense(
    a: &mut [f64],
    ld: usize,
    islands: &Islands,
    k: usize,
    system: &BlockSparseSystem<'_>,
    shift: f64,
) {
    let layout = system.layout();
    // An opaque zero: a loop storing a literal 0 is turned into a `memset` call per segment.
    let zero = std::hint::black_box(0.0);
    for &t in islands.trees(k) {
        let t = t as usize;
        let off = islands.local_offset(t);
        let nt = layout.tree_dofs(t);
        let m = system.m_values(t);
        for c in 0..nt {
            let col = &mut a[(off + c) * ld..(off + c + 1) * ld];
            let (above, rest) = col.split_at_mut(off);
            let (diag, below) = rest.split_at_mut(nt);
            for x in above {
                *x = zero;
            }
            if nt == 6 {
                // A free body: one 6-row column (vectorized).
                let d: &mut [f64; 6] = (&mut *diag).try_into().unwrap();
                let mc: &[f64; 6] = m[6 * c..6 * c + 6].try_into().unwrap();
                for r in 0..6 {
                    d[r] = 0.0 + mc[r];
                }
            } else {
                for (x, &v) in diag.iter_mut().zip(&m[c * nt..(c + 1) * nt]) {
                    *x = 0.0 + v;
                }
            }
            diag[c] += shift;
            for x in below {
                *x = zero;
            }
        }
    }
}

/// `Y = scale·W·G_q` into `wg`: three rows of n_q values (the same expression, term by term, on
/// every path).
#[inline(always)]
fn weigh<'w>(
    wg: &'w mut [f64],
    gq: Rows<'_>,
    w: &[[f64; 3]; 3],
    scale: f64,
) -> (&'w mut [f64], &'w mut [f64], &'w mut [f64]) {
    let nq = gq.len();
    let (y0, rest) = wg[..3 * nq].split_at_mut(nq);
    let (y1, y2) = rest.split_at_mut(nq);
    let row = |k: usize, g: [f64; 3]| scale * (w[k][0] * g[0] + w[k][1] * g[1] + w[k][2] * g[2]);
    if let (Some([n, t1, t2]), Ok(o0), Ok(o1), Ok(o2)) = (
        gq.fixed::<6>(),
        <&mut [f64; 6]>::try_from(&mut *y0),
        <&mut [f64; 6]>::try_from(&mut *y1),
        <&mut [f64; 6]>::try_from(&mut *y2),
    ) {
        // A free body: fixed-length rows, one output row at a time (vectorized).
        for (k, o) in [o0, o1, o2].into_iter().enumerate() {
            for c in 0..6 {
                o[c] = row(k, [n[c], t1[c], t2[c]]);
            }
        }
    } else {
        for c in 0..nq {
            let g = [gq.n[c], gq.t1[c], gq.t2[c]];
            (y0[c], y1[c], y2[c]) = (row(0, g), row(1, g), row(2, g));
        }
    }
    (y0, y1, y2)
}

/// Adds `scale·Σᵢ Jᵢᵀ Wᵢ Jᵢ` of `contacts` into the value arrays `vals` (the dense matrix, or the
/// sparse L and U panels) at the destinations [`BlockNewtonMatrix::prepare`] found: the same
/// operations in the same order as [`assemble_island`], without its lookups. The runs of
/// free-body contacts marked at `prepare` go through [`assemble_free_body_run`].
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn assemble_contacts(
    mut vals: [&mut [f64]; 2],
    contacts: &[u32],
    scatter: &[Scatter],
    rows: &ContactRows,
    j: &[f64],
    wg: &mut [f64],
    scale: f64,
    weight: &impl Fn(usize) -> [[f64; 3]; 3],
) {
    let mut s = 0;
    while let Some(&i) = contacts.get(s) {
        let i = i as usize;
        let d = rows.desc(i);
        let sc = &scatter[i];
        if sc.run > 0 {
            let run = &contacts[s..s + sc.run as usize];
            let nb = if d.n[1] == 6 { 2 } else { 1 };
            assemble_free_body_run(&mut vals, sc, rows, j, d.off, run, nb, wg, weight, scale);
            s += run.len();
            continue;
        }
        s += 1;
        let w = weight(i);
        let nb = if d.n[1] > 0 { 2 } else { 1 };
        // The contact's blocks transposed into the scratch (rows along the dofs), `Y` after.
        let (n0, n1) = (d.n[0], if nb == 2 { d.n[1] } else { 0 });
        let (gt, wg) = wg.split_at_mut(3 * (n0 + n1));
        let (g0, g1) = gt.split_at_mut(3 * n0);
        let blocks = [block_rows(rows, j, d.off, g0), block_rows(rows, j, d.off + 3 * n0, g1)];
        let blocks = &blocks[..nb];
        for (q, &gq) in blocks.iter().enumerate() {
            let (y0, y1, y2) = weigh(wg, gq, &w, scale);
            for (p, &gp) in blocks.iter().enumerate() {
                let dst = sc.dst[2 * p + q];
                if dst.array == SKIP {
                    continue;
                }
                let a = &mut vals[dst.array as usize][dst.off..];
                let y = [&*y0, &*y1, &*y2];
                if dst.first {
                    add_block::<true>(a, dst.rs, dst.cs, gp, y);
                } else {
                    add_block::<false>(a, dst.rs, dst.cs, gp, y);
                }
            }
        }
    }
}

/// [`assemble_contacts`] for a run of contacts between the same free bodies (6 dofs each; `nb`:
/// one or two of them), the run's transposed blocks consecutive from `off` (see
/// [`BlockNewtonMatrix::find_runs`]). First `Y_j = scale·W_j·G_{j,q}` of every contact j of the
/// run into `wg` (18 values per tree block: three rows of 6, as [`weigh`]); then each destination
/// block is loaded once, column by column (row by row in a U panel), gets the terms of every
/// contact of the run in their order, and is stored once, where a contact at a time loaded and
/// stored it per contact. Each entry gets the operations of [`add_block`] in the same order, so
/// the bits are those of one contact at a time (issue 29, `docs/performance.md` §3, sixth pass).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn assemble_free_body_run(
    vals: &mut [&mut [f64]; 2],
    sc: &Scatter,
    rows: &ContactRows,
    j: &[f64],
    off: usize,
    run: &[u32],
    nb: usize,
    wg: &mut [f64],
    weight: &impl Fn(usize) -> [[f64; 3]; 3],
    scale: f64,
) {
    let blocks = nb * run.len();
    let (gt, wg) = wg.split_at_mut(18 * blocks);
    let g = match rows.copied_rows(off, 18 * blocks) {
        Some(r) => r,
        None => {
            // In place: the run's blocks as rows into the scratch first.
            let (jg, _) = j[off..off + 18 * blocks].as_chunks::<18>();
            let (gc, _) = gt.as_chunks_mut::<18>();
            for (jq, gq) in jg.iter().zip(gc) {
                *gq = rows6_flat(jq);
            }
            &*gt
        }
    };
    let (g, _) = g.as_chunks::<18>();
    let (y, _) = wg[..18 * blocks].as_chunks_mut::<18>();
    for (&i, (gj, yj)) in run.iter().zip(g.chunks_exact(nb).zip(y.chunks_exact_mut(nb))) {
        let w = weight(i as usize);
        let row = |k: usize, g: [f64; 3]| scale * (w[k][0] * g[0] + w[k][1] * g[1] + w[k][2] * g[2]);
        for (gq, yq) in gj.iter().zip(yj.iter_mut()) {
            // In a local array first, one output row at a time (vectorized, as in [`weigh`]).
            let (gr, _) = gq.as_chunks::<6>();
            let [n, t1, t2] = [&gr[0], &gr[1], &gr[2]];
            let mut yl = [[0.0; 6]; 3];
            for (k, o) in yl.iter_mut().enumerate() {
                for c in 0..6 {
                    o[c] = row(k, [n[c], t1[c], t2[c]]);
                }
            }
            yq.copy_from_slice(yl.as_flattened());
        }
    }
    let y = &*y;
    for q in 0..nb {
        let (da, db) = (sc.dst[q], sc.dst[2 + q]);
        if nb == 2 && da.array != SKIP && da.array == db.array && (da.rs, db.rs, da.cs) == (1, 1, db.cs) {
            // Both blocks of column q column-major in one array (a dense island, or the L
            // panels of the first tree's column): one pass over the columns of tree q.
            // One of the two is tree q's diagonal block (never a first write).
            let (a, off) = (&mut *vals[da.array as usize], [da.off, db.off]);
            match (da.first, db.first) {
                (true, _) => add_column_pairs6_run::<true, false>(a, off, da.cs, g, y, q),
                (_, true) => add_column_pairs6_run::<false, true>(a, off, da.cs, g, y, q),
                _ => add_column_pairs6_run::<false, false>(a, off, da.cs, g, y, q),
            }
            continue;
        }
        for p in 0..nb {
            let dst = sc.dst[2 * p + q];
            if dst.array == SKIP {
                continue;
            }
            let a = &mut vals[dst.array as usize][dst.off..];
            if dst.rs == 1 {
                if dst.first {
                    add_columns6_run::<true>(a, dst.cs, g, y, [nb, p, q]);
                } else {
                    add_columns6_run::<false>(a, dst.cs, g, y, [nb, p, q]);
                }
            } else if dst.cs == 1 {
                // A row-major block (a U panel): row r of `G_pᵀ Y_q` is column r of `Y_qᵀ G_p`,
                // so the column kernel with the roles of `g` and `y` swapped; each entry gets
                // the products of `add_rows6` in its order (a product inside a fused
                // multiply-add is exact, so its operands' order does not change the bits).
                if dst.first {
                    add_columns6_run::<true>(a, dst.rs, y, g, [nb, q, p]);
                } else {
                    add_columns6_run::<false>(a, dst.rs, y, g, [nb, q, p]);
                }
            } else {
                for (j, (gj, yj)) in g.chunks_exact(nb).zip(y.chunks_exact(nb)).enumerate() {
                    let (gp, yq) = (&gj[p], &yj[q]);
                    let gp = Rows { n: &gp[..6], t1: &gp[6..12], t2: &gp[12..] };
                    let yq = [&yq[..6], &yq[6..12], &yq[12..]];
                    if dst.first && j == 0 {
                        add_block::<true>(a, dst.rs, dst.cs, gp, yq);
                    } else {
                        add_block::<false>(a, dst.rs, dst.cs, gp, yq);
                    }
                }
            }
        }
    }
}

/// The blocks (a, q) and (b, q) of a run of two-free-body contacts at once (column-major in one
/// array, from `off[0]` and `off[1]`, column stride `cs`): `g` and `y` hold per contact the tree
/// blocks `G_a`, `G_b` and `Y_a`, `Y_b` (three rows of 6 each). Column c of both blocks is loaded
/// once, gets `G_pᵀ Y_q` of every contact of the run (per entry the operations of
/// [`add_columns6`] in the same order) and is stored once; the three values `Y_q[·][c]` of a
/// contact are broadcast once for both blocks (`docs/performance.md` §3, fifth and sixth passes).
#[inline(always)]
fn add_column_pairs6_run<const FIRST0: bool, const FIRST1: bool>(
    a: &mut [f64],
    off: [usize; 2],
    cs: usize,
    g: &[[f64; 18]],
    y: &[[f64; 18]],
    q: usize,
) {
    assert!(q < 2);
    let (g, _) = g.as_chunks::<2>();
    let (y, _) = y.as_chunks::<2>();
    for c in 0..6 {
        let mut x = [[0.0; 6]; 2];
        // The stored columns, but where this run writes a block first (`FIRST0`, `FIRST1`).
        if !FIRST0 {
            x[0].copy_from_slice(&a[off[0] + c * cs..off[0] + c * cs + 6]);
        }
        if !FIRST1 {
            x[1].copy_from_slice(&a[off[1] + c * cs..off[1] + c * cs + 6]);
        }
        for (gj, yj) in g.iter().zip(y) {
            let yq = &yj[q];
            let (y0, y1, y2) = (yq[c], yq[6 + c], yq[12 + c]);
            for (x, gp) in x.iter_mut().zip(gj) {
                for r in 0..6 {
                    x[r] = gp[12 + r].mul_add(y2, gp[6 + r].mul_add(y1, gp[r].mul_add(y0, x[r])));
                }
            }
        }
        for (&o, x) in off.iter().zip(&x) {
            a[o + c * cs..o + c * cs + 6].copy_from_slice(x);
        }
    }
}

/// Block (p, q) of a run of free-body contacts (`[nb, p, q]`: `nb` tree blocks per contact in `g`
/// and `y`, as in [`add_column_pairs6_run`]) into a column-major block (row stride 1, column
/// stride `cs`): each column loaded and stored once per run, the operations of [`add_columns6`]
/// per entry in the contacts' order (`FIRST`: on a zero, [`Dst::first`]).
#[inline(always)]
fn add_columns6_run<const FIRST: bool>(
    a: &mut [f64],
    cs: usize,
    g: &[[f64; 18]],
    y: &[[f64; 18]],
    [nb, p, q]: [usize; 3],
) {
    assert!(p < nb && q < nb);
    for c in 0..6 {
        let col: &mut [f64; 6] = (&mut a[c * cs..c * cs + 6]).try_into().unwrap();
        let mut x = if FIRST { [0.0; 6] } else { *col };
        for (gj, yj) in g.chunks_exact(nb).zip(y.chunks_exact(nb)) {
            let (gp, yq) = (&gj[p], &yj[q]);
            let (y0, y1, y2) = (yq[c], yq[6 + c], yq[12 + c]);
            for r in 0..6 {
                x[r] = gp[12 + r].mul_add(y2, gp[6 + r].mul_add(y1, gp[r].mul_add(y0, x[r])));
            }
        }
        *col = x;
    }
}

/// [`add_block`] of a free body's `G_p` (6 dofs) into a column-major block (row stride 1, column
/// stride `cs`), one column per entry of `y`.
#[inline(always)]
fn add_columns6<const FIRST: bool>(a: &mut [f64], cs: usize, [g0, g1, g2]: [&[f64; 6]; 3], y: [&[f64]; 3]) {
    // The rows of G_pᵀ copied to locals once (registers across the columns) and each column
    // updated as a whole array: the loop then vectorizes (4 + 2 lanes).
    let (g0, g1, g2) = (*g0, *g1, *g2);
    for (c, ((&a0, &a1), &a2)) in y[0].iter().zip(y[1].iter()).zip(y[2].iter()).enumerate() {
        let col: &mut [f64; 6] = (&mut a[c * cs..c * cs + 6]).try_into().unwrap();
        let mut x = if FIRST { [0.0; 6] } else { *col };
        for r in 0..6 {
            x[r] = g2[r].mul_add(a2, g1[r].mul_add(a1, g0[r].mul_add(a0, x[r])));
        }
        *col = x;
    }
}

/// [`add_block`] of a free body's `G_p` into a row-major 6×6 block (row stride `rs`; a sparse
/// factorization's U panels).
#[inline(always)]
fn add_rows6<const FIRST: bool>(
    a: &mut [f64],
    rs: usize,
    [g0, g1, g2]: [&[f64; 6]; 3],
    [y0, y1, y2]: [&[f64; 6]; 3],
) {
    for r in 0..6 {
        let row: &mut [f64; 6] = (&mut a[r * rs..r * rs + 6]).try_into().unwrap();
        let mut x = if FIRST { [0.0; 6] } else { *row };
        for c in 0..6 {
            x[c] = g2[r].mul_add(y2[c], g1[r].mul_add(y1[c], g0[r].mul_add(y0[c], x[c])));
        }
        *row = x;
    }
}

/// `A[p, q] += G_pᵀ Y` for a block stored from `a[0]` with row stride `rs` and column stride
/// `cs`: entry (r, c) gets `Y[0][c]·g_n[r] + Y[1][c]·g_t1[r] + Y[2][c]·g_t2[r]`. Column-major
/// blocks (`rs = 1`) are updated column by column over the contiguous rows of `G_pᵀ` (free bodies,
/// 6 dofs, with fixed-length rows held in registers); row-major ones (`cs = 1`) row by row.
/// With `FIRST` the stored values are not read: the terms go onto a zero ([`Dst::first`]).
#[inline(always)]
fn add_block<const FIRST: bool>(a: &mut [f64], rs: usize, cs: usize, gp: Rows<'_>, y: [&[f64]; 3]) {
    let nq = y[0].len();
    let np = gp.len();
    let base = |o: &f64| if FIRST { 0.0 } else { *o };
    if rs == 1 {
        if let Some(g) = gp.fixed::<6>() {
            add_columns6::<FIRST>(a, cs, g, y);
            return;
        }
        for c in 0..nq {
            let col = &mut a[c * cs..c * cs + np];
            let (a0, a1, a2) = (y[0][c], y[1][c], y[2][c]);
            for (((o, &g0), &g1), &g2) in col.iter_mut().zip(gp.n).zip(gp.t1).zip(gp.t2) {
                *o = g2.mul_add(a2, g1.mul_add(a1, g0.mul_add(a0, base(o))));
            }
        }
    } else if cs == 1 {
        if let (Some(g), Ok(y0), Ok(y1), Ok(y2)) = (
            gp.fixed::<6>(),
            <&[f64; 6]>::try_from(y[0]),
            <&[f64; 6]>::try_from(y[1]),
            <&[f64; 6]>::try_from(y[2]),
        ) {
            add_rows6::<FIRST>(a, rs, g, [y0, y1, y2]);
            return;
        }
        for r in 0..np {
            let row = &mut a[r * rs..r * rs + nq];
            let (g0, g1, g2) = (gp.n[r], gp.t1[r], gp.t2[r]);
            for (((o, &a0), &a1), &a2) in row.iter_mut().zip(y[0].iter()).zip(y[1].iter()).zip(y[2].iter()) {
                *o = g2.mul_add(a2, g1.mul_add(a1, g0.mul_add(a0, base(o))));
            }
        }
    } else {
        for c in 0..nq {
            for r in 0..np {
                let o = &mut a[r * rs + c * cs];
                *o = gp.t2[r].mul_add(y[2][c], gp.t1[r].mul_add(y[1][c], gp.n[r].mul_add(y[0][c], base(o))));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Free bodies in runs of contacts (one sparse island of six trees, 36 dofs), a 7-dof tree
    /// with a free body (the general kernels), a lone body on the ground (a small dense island).
    fn layout() -> BlockSparseLayout {
        let mut layout = BlockSparseLayout::new();
        let mut contacts = Vec::new();
        for (a, b, count) in
            [(0, Some(1), 3), (1, Some(2), 2), (2, Some(3), 1), (3, Some(4), 4), (4, Some(5), 2)]
        {
            contacts.extend(std::iter::repeat_n((a, b), count));
        }
        contacts.extend([(5, None), (5, None), (6, Some(7)), (6, Some(7)), (7, Some(6)), (6, None)]);
        contacts.extend([(8, None); 3]);
        layout.set(&[6, 6, 6, 6, 6, 6, 7, 6, 6], &contacts).unwrap();
        layout
    }

    fn values(len: usize, seed: f64) -> Vec<f64> {
        (0..len).map(|k| ((k as f64 + seed) * 0.731).sin()).collect()
    }

    /// Each tree's M block: 4·I plus a small symmetric part.
    fn masses(layout: &BlockSparseLayout) -> Vec<f64> {
        let mut m = vec![0.0; layout.m_len()];
        for t in 0..layout.num_trees() {
            let (off, n) = (layout.m_offset(t), layout.tree_dofs(t));
            for c in 0..n {
                for r in 0..n {
                    let x = 0.1 * ((r + c + t) as f64).cos();
                    m[off + c * n + r] = x + if r == c { 4.0 } else { 0.0 };
                }
            }
        }
        m
    }

    /// Contact i's weight: symmetric, positive definite, different for every contact.
    fn weight(i: usize) -> [[f64; 3]; 3] {
        let s = |k: usize| 0.2 * ((3 * i + k) as f64).sin();
        [[2.0 + s(0), s(1), s(2)], [s(1), 1.5 + s(3), s(4)], [s(2), s(4), 1.0 + s(5)]]
    }

    /// A sparse island's assembly clears only the fill and stores the first terms of every block
    /// of the pattern (issue 29, `docs/performance.md` §3 ninth pass): with every stored value
    /// poisoned (NaN) before it, the factors and the solution are the bits of an assembly into
    /// freshly zeroed storage, for both factorizations.
    #[test]
    fn sparse_islands_write_every_stored_value() {
        let layout = layout();
        let (m, j) = (masses(&layout), values(layout.j_len(), 1.5));
        let system = BlockSparseSystem::new(&layout, &m, &j).unwrap();
        let b = values(system.num_velocities(), 3.0);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for kind in [Factorization::Lu, Factorization::Ldlt] {
            let solve = |poison: bool| {
                let mut nm = BlockNewtonMatrix::new();
                nm.prepare(&system, kind).unwrap();
                let mut sparse = 0;
                for f in &mut nm.factors {
                    let values = match kind {
                        Factorization::Lu => f.sparse_lu.as_deref_mut().map(|s| s.values_mut()),
                        Factorization::Ldlt => f.sparse_ldlt.as_deref_mut().map(|s| s.values_mut()),
                    };
                    if let (true, Some((l, u))) = (poison, values) {
                        l.fill(f64::NAN);
                        u.fill(f64::NAN);
                        sparse += 1;
                    }
                }
                assert_eq!(sparse, if poison { 1 } else { 0 }, "{kind:?}: one sparse island");
                assert!(nm.assemble_and_factor(&system, 0.3, kind, weight));
                assert!(nm.factors.iter().all(|f| !f.dense_fallback), "{kind:?}: factored sparse");
                let mut x = b.clone();
                nm.solve_in_place(&system, &mut x);
                x
            };
            assert_eq!(bits(&solve(true)), bits(&solve(false)), "{kind:?}");
        }
    }

    #[test]
    fn jacobian_read_in_place_gives_the_bits_of_the_copy() {
        // Issue 29 (the live loop): a solve that follows a one-assembly solve reads the caller's
        // blocks in place; any other reads the transposed copy. The factors and solutions are the
        // same bits either way, for both factorizations and every kernel (runs of free bodies into
        // dense and supernodal storage, general trees).
        let layout = layout();
        let (m, j) = (masses(&layout), values(layout.j_len(), 1.5));
        let system = BlockSparseSystem::new(&layout, &m, &j).unwrap();
        let b = values(system.num_velocities(), 3.0);
        for kind in [Factorization::Lu, Factorization::Ldlt] {
            let mut nm = BlockNewtonMatrix::new();
            let mut solve = |assemblies: usize| {
                nm.prepare(&system, kind).unwrap();
                for _ in 0..assemblies {
                    assert!(nm.assemble_and_factor(&system, 0.3, kind, weight));
                }
                let mut x = b.clone();
                nm.solve_in_place(&system, &mut x);
                (nm.rows.copied_rows(0, 0).is_some(), x)
            };
            let (copied, want) = solve(1);
            assert!(copied, "the first solve reads the copy");
            for (assemblies, in_place) in [(1, true), (1, true), (2, false), (1, false), (1, true)] {
                let (copied, x) = solve(assemblies);
                // A two-assembly solve starts in place and makes the copy for its second.
                assert_eq!(copied, !in_place || assemblies > 1, "{kind:?} {assemblies} {in_place}");
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&x), bits(&want), "{kind:?}: {assemblies} assemblies, in place {in_place}");
            }
            // And the answer is the dense one: (M + 0.3·Σ Jᵢᵀ Wᵢ Jᵢ) x = b.
            let (md, jd) = system.to_dense();
            let mut a = md;
            for i in 0..layout.num_contacts() {
                let ji = jd.rows(3 * i, 3);
                let w = nalgebra::Matrix3::from_fn(|r, c| weight(i)[r][c]);
                a += 0.3 * ji.transpose() * w * ji;
            }
            let x = nalgebra::DVector::from_column_slice(&want);
            let r = &a * &x - nalgebra::DVector::from_column_slice(&b);
            assert!(r.amax() < 1e-12, "{kind:?}: residual {}", r.amax());
        }
    }
}
