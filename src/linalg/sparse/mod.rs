//! Sparse LU and LDLᵀ of block-structured matrices (the Newton matrices of large contact
//! islands), with the symbolic analysis done once per block pattern and reused.
//!
//! # The matrices
//!
//! A square matrix of size `n = Σ dims[b]` split into `nb` diagonal blocks (trees) of sizes
//! `dims`; block `(a, b)` is a dense `dims[a] × dims[b]` block, present when `a == b` or when the
//! pair `{a, b}` is in the pattern's list of coupled pairs (a contact between trees a and b). The
//! pattern is structurally symmetric: a pair `(a, b)` makes both `(a, b)` and `(b, a)` present.
//! Scalar index `i` of block `b` is global index `Σ_{c<b} dims[c] + i`.
//!
//! # Usage
//!
//! 1. [`BlockSparseLu::analyze`] with the block sizes and the coupled pairs. Pairs may come in
//!    any order and orientation, with duplicates (one per contact is fine). The analysis
//!    (fill-reducing ordering of the block graph, elimination tree, supernodes, value layout) is
//!    skipped when the pattern equals the current one ([`Reuse::Unchanged`]) or one of the last
//!    few analysed ones ([`Reuse::Cached`], see [`BlockSparseLu::set_cache_capacity`]).
//! 2. [`BlockSparseLu::clear_values`], then add each block's values through
//!    [`BlockSparseLu::block_mut`]: a view straight into the factor's storage (column-major with
//!    a leading dimension), no dense `n×n` matrix and no hashing per entry.
//! 3. [`BlockSparseLu::factor`], then [`BlockSparseLu::solve_in_place`] as often as needed.
//!
//! Once the storage has grown to a pattern's size, `clear_values`, `block_mut`, `factor` and
//! `solve_in_place` allocate nothing, and neither does `analyze` on a cache hit.
//!
//! # Method
//!
//! Approximate minimum degree (faer's AMD) orders the block graph; the elimination tree is
//! postordered and consecutive blocks are merged into supernodes (fundamental ones, then
//! CHOLMOD-style relaxed amalgamation). Each supernode stores a dense panel: its diagonal block
//! and the rows below it (L), and for LU the columns to its right (U). The numeric factorization
//! is right-looking: factor the diagonal block, two triangular solves, one dense update
//! `W = L21·U12` (faer's matrix multiply) scattered into the ancestors' panels through a plan
//! made at analysis.
//!
//! # Pivoting and failure (differences from the dense kernels)
//!
//! Row exchanges ([`BlockSparseLu`]) and symmetric exchanges ([`BlockSparseLdlt`]) happen only
//! inside the diagonal block of each supernode, so the structure of the factors never depends on
//! the values (the analysis holds for every value set, and a numeric factorization never
//! allocates). This is the pivoting of PARDISO-style supernodal solvers; it is stable when the
//! diagonal blocks dominate, as they do for `M + dt·Σ Jᵀ W J` with M block diagonal positive
//! definite, but it is not the dense partial pivoting of [`PartialPivLu`](super::PartialPivLu)
//! or the full diagonal pivoting of [`Ldlt`](super::Ldlt):
//!
//! * `factor` fails with [`SparseError::Singular`] when a pivot `u` satisfies
//!   `!(|u| > n·ε·c)`, with `c` the largest |entry| of that column of the assembled matrix (for
//!   LDLᵀ: of the symmetric matrix). An exactly or numerically singular matrix fails; so does a
//!   nonsingular one whose diagonal blocks become (nearly) singular during elimination, which
//!   wider pivoting might have factored. Callers fall back to the dense kernels then.
//! * Dense [`PartialPivLu`](super::PartialPivLu) never fails (Eigen's `PartialPivLU`; the solve
//!   of a singular matrix is non-finite). Dense [`Ldlt`](super::Ldlt) follows Eigen's
//!   `NumericalIssue` rules (an exactly zero pivot with a nonzero sub-column, or a zero pivot
//!   followed by a nonzero one) and solves with the pseudo-inverse of D. The sparse LDLᵀ has no
//!   pseudo-inverse: any pivot below the threshold is a failure, including the zero-pivot,
//!   zero-column case Eigen accepts. Its pivot choice is Eigen's rule (largest |diagonal|, first
//!   index on ties) restricted to each supernode, so its factors and rounding differ from the
//!   dense one's; no bit-for-bit agreement is possible.
//! * Non-finite assembled values fail with [`SparseError::NonFinite`] before any elimination.
//!
//! Layout of every view and slice: column-major; `rhs` in the original scalar order.
//!
//! # When to use it
//!
//! For islands of at least [`BLOCK_SPARSE_MIN_DIM`] dofs (measured crossover against the dense
//! kernels, assembly + factor + solve, `benches/sparse_lu.rs`); smaller ones are cheaper dense.

mod numeric;
mod shared;
mod symbolic;

use faer::dyn_stack::{MemBuffer, StackReq};
use faer::linalg::lu::partial_pivoting::factor as faer_lu;
use faer::{Par, Spec};
use nalgebra::{Dyn, MatrixViewMut};

pub(crate) use numeric::grow_product_buffers;
pub use shared::SparseError;
use shared::{Kind, try_grow};
use symbolic::{PatternKey, Symbolic};

/// What [`BlockSparseLu::analyze`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reuse {
    /// The pattern equals the current one: nothing was done.
    Unchanged,
    /// The pattern equals one analysed recently: that analysis was made current.
    Cached,
    /// A new symbolic analysis was made.
    Analyzed,
}

/// Figures of the current analysis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockSparseStats {
    /// Matrix size (scalar).
    pub n: usize,
    /// Number of diagonal blocks.
    pub blocks: usize,
    /// Number of distinct coupled pairs.
    pub pairs: usize,
    /// Number of supernodes.
    pub supernodes: usize,
    /// Largest supernode width (scalar columns).
    pub max_supernode: usize,
    /// Stored values of the factors (L and U panels).
    pub factor_values: usize,
    /// Floating-point operations of one numeric factorization.
    pub flops: f64,
    /// Symbolic analyses made by this object so far.
    pub analyses: usize,
}

/// A block view into the factor storage: `dims[a] × dims[b]`, element (i, j) at
/// `i·row_stride + j·col_stride` (column-major with a leading dimension, or its transpose for the
/// upper blocks of [`BlockSparseLdlt`]).
pub type BlockViewMut<'a> = MatrixViewMut<'a, f64, Dyn, Dyn, Dyn, Dyn>;

/// Island size (scalar dofs) from which [`BlockSparseLu`] / [`BlockSparseLdlt`] beat the dense
/// [`PartialPivLu`](super::PartialPivLu) / [`Ldlt`](super::Ldlt) on the engine scenes' islands
/// (assembly from blocks + factor + one solve, `benches/sparse_lu.rs`, group `threshold`):
/// dense is faster at 12–24 dofs (by up to 30%), sparse from 30 on (LU 1.3× at 30, 2.6× at 60,
/// 3.4× at 132, 18× at 600 dofs; LDLᵀ 1.5×, 2.7×, 8×, 59×).
pub const BLOCK_SPARSE_MIN_DIM: usize = 30;

/// Where a stored block lives in the value arrays of the current analysis
/// ([`BlockSparseLu::block_location`]): entry (r, c) of block (a, b) is
/// `values[offset + r·rs + c·cs]`, `values` the U panels when `upper_panel`, else the L panels
/// (the two arrays of [`BlockSparseLu::values_mut`]). Valid until the next analysis.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BlockLocation {
    /// In the U panels (else the L panels).
    pub upper_panel: bool,
    /// Offset of entry (0, 0).
    pub offset: usize,
    /// Row stride.
    pub rs: usize,
    /// Column stride.
    pub cs: usize,
}

/// Default number of analyses kept.
const DEFAULT_CACHE: usize = 4;

/// The machinery shared by both factorizations.
struct Engine {
    kind: Kind,
    /// Recent analyses, most recent first; `cache[0]` is the current one when `current`.
    cache: Vec<Symbolic>,
    current: bool,
    capacity: usize,
    key: PatternKey,
    analyses: usize,
    /// Values: the L panels and the U panels (LU only), laid out by the current analysis.
    lval: Vec<f64>,
    uval: Vec<f64>,
    /// Per supernode, its pivot order: `piv[sn_col[s] + i]` is the local index (in the
    /// supernode) of the row (LU) or row/column (LDLᵀ) placed at local position i.
    piv: Vec<usize>,
    /// Inverse of one supernode's pivot order (faer's dense LU writes it).
    piv_inv: Vec<usize>,
    /// Largest |entry| of each (permuted) column of the assembled matrix.
    colmax: Vec<f64>,
    /// Update matrix `W` (`r × r`; also the row maxima of a panel while scanning) and, for
    /// LDLᵀ, `L21·D` (`r × w`).
    work: Vec<f64>,
    work2: Vec<f64>,
    /// The right-hand side in the permuted order, and one supernode's segment.
    x: Vec<f64>,
    seg: Vec<f64>,
    /// Scratch of faer's dense LU for large diagonal blocks.
    stack: MemBuffer,
    stack_dim: usize,
    factored: bool,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("kind", &self.kind)
            .field("stats", &self.stats())
            .field("cached", &self.cache.len())
            .field("factored", &self.factored)
            .finish_non_exhaustive()
    }
}

impl Engine {
    fn new(kind: Kind) -> Self {
        Self {
            kind,
            cache: Vec::new(),
            current: false,
            capacity: DEFAULT_CACHE,
            key: PatternKey::default(),
            analyses: 0,
            lval: Vec::new(),
            uval: Vec::new(),
            piv: Vec::new(),
            piv_inv: Vec::new(),
            colmax: Vec::new(),
            work: Vec::new(),
            work2: Vec::new(),
            x: Vec::new(),
            seg: Vec::new(),
            stack: MemBuffer::new(faer::dyn_stack::StackReq::EMPTY),
            stack_dim: 0,
            factored: false,
        }
    }

    fn symbolic(&self) -> Result<&Symbolic, SparseError> {
        if self.current { Ok(&self.cache[0]) } else { Err(SparseError::NotAnalyzed) }
    }

    fn analyze(&mut self, dims: &[usize], pairs: &[(usize, usize)]) -> Result<Reuse, SparseError> {
        self.factored = false;
        let mut key = std::mem::take(&mut self.key);
        let result = self.analyze_key(&mut key, dims, pairs);
        self.key = key;
        if result.is_err() {
            self.current = false;
        }
        result
    }

    fn analyze_key(
        &mut self,
        key: &mut PatternKey,
        dims: &[usize],
        pairs: &[(usize, usize)],
    ) -> Result<Reuse, SparseError> {
        key.assign(dims, pairs)?;
        let reuse = match self.cache.iter().position(|s| s.key == *key) {
            Some(0) if self.current => Reuse::Unchanged,
            Some(i) => {
                self.cache[..=i].rotate_right(1);
                Reuse::Cached
            }
            None => {
                self.current = false;
                let sym = Symbolic::analyze(key, self.kind)?;
                self.analyses += 1;
                symbolic::try_reserve(&mut self.cache, 1)?;
                self.cache.insert(0, sym);
                self.cache.truncate(self.capacity.max(1));
                Reuse::Analyzed
            }
        };
        self.current = false;
        self.grow_for_current()?;
        self.current = true;
        Ok(reuse)
    }

    /// Grows the value storage and scratch to the current analysis (`cache[0]`).
    fn grow_for_current(&mut self) -> Result<(), SparseError> {
        let s = &self.cache[0];
        let (n, w, r) = (s.n, s.max_w, s.max_r);
        try_grow(&mut self.lval, s.l_len, 0.0)?;
        try_grow(&mut self.uval, s.u_len, 0.0)?;
        try_grow(&mut self.piv, n, 0)?;
        try_grow(&mut self.colmax, n, 0.0)?;
        // `work` doubles as the row maxima of one panel in `factor`'s scan (w + r values).
        let work_len = r.checked_mul(r).ok_or(SparseError::OutOfMemory)?.max(w + r);
        try_grow(&mut self.work, work_len, 0.0)?;
        if self.kind == Kind::Ldlt {
            try_grow(&mut self.work2, r.checked_mul(w).ok_or(SparseError::OutOfMemory)?, 0.0)?;
        }
        try_grow(&mut self.x, n, 0.0)?;
        try_grow(&mut self.seg, w, 0.0)?;
        try_grow(&mut self.piv_inv, w, 0)?;
        if self.kind == Kind::Lu && w > self.stack_dim {
            let req = dense_lu_scratch(w);
            self.stack = MemBuffer::try_new(req).map_err(|_| SparseError::OutOfMemory)?;
            self.stack_dim = w;
        }
        Ok(())
    }

    fn set_cache_capacity(&mut self, capacity: usize) {
        self.capacity = capacity.max(1);
        self.cache.truncate(self.capacity);
    }

    fn clear_values(&mut self) {
        self.factored = false;
        if let Ok(s) = self.symbolic() {
            let (l, u) = (s.l_len, s.u_len);
            self.lval[..l].fill(0.0);
            self.uval[..u].fill(0.0);
        }
    }

    /// Zeros the stored values outside the pattern's blocks ([`Symbolic::fill_l`],
    /// [`Symbolic::fill_u`]) and leaves the blocks as they are: for an assembly that then writes
    /// every entry of every block of the pattern (its first contribution stored, not added to a
    /// cleared zero), so that each value is stored once (issue 29, `docs/performance.md` §3
    /// "The shared assembly, ninth pass").
    fn clear_fill(&mut self) {
        self.factored = false;
        if !self.current {
            return;
        }
        let s = &self.cache[0];
        // An opaque zero: a loop storing a literal 0 becomes a `memset` call per range, and most
        // ranges are a few values.
        let zero = std::hint::black_box(0.0);
        for (vals, ranges) in [(&mut self.lval, &s.fill_l), (&mut self.uval, &s.fill_u)] {
            for &(start, len) in ranges {
                for x in &mut vals[start..start + len] {
                    *x = zero;
                }
            }
        }
    }

    /// The stored block (a, b) as `(values, rows, cols, row stride, column stride)`; marks the
    /// values changed.
    #[allow(clippy::type_complexity)]
    fn block_parts(
        &mut self,
        a: usize,
        b: usize,
    ) -> Result<(&mut [f64], usize, usize, usize, usize), SparseError> {
        self.factored = false;
        let s = self.symbolic()?;
        let loc = s.block_loc(a, b).ok_or(SparseError::NotInPattern { a, b })?;
        let (rows, cols) = (s.key.dims[a], s.key.dims[b]);
        let values = if loc.upper_panel { &mut self.uval } else { &mut self.lval };
        let len = (rows - 1) * loc.rs + (cols - 1) * loc.cs + 1;
        Ok((&mut values[loc.offset..loc.offset + len], rows, cols, loc.rs, loc.cs))
    }

    fn block_slice_mut(&mut self, a: usize, b: usize) -> Result<(&mut [f64], usize, usize), SparseError> {
        self.block_parts(a, b).map(|(values, _, _, rs, cs)| (values, rs, cs))
    }

    fn block_location(&self, a: usize, b: usize) -> Result<BlockLocation, SparseError> {
        let s = self.symbolic()?;
        let loc = s.block_loc(a, b).ok_or(SparseError::NotInPattern { a, b })?;
        Ok(BlockLocation { upper_panel: loc.upper_panel, offset: loc.offset, rs: loc.rs, cs: loc.cs })
    }

    fn values_mut(&mut self) -> (&mut [f64], &mut [f64]) {
        self.factored = false;
        (&mut self.lval, &mut self.uval)
    }

    fn block_mut(&mut self, a: usize, b: usize) -> Result<BlockViewMut<'_>, SparseError> {
        let (slice, rows, cols, rs, cs) = self.block_parts(a, b)?;
        Ok(BlockViewMut::from_slice_with_strides_generic(slice, Dyn(rows), Dyn(cols), Dyn(rs), Dyn(cs)))
    }

    fn stats(&self) -> Option<BlockSparseStats> {
        let s = self.symbolic().ok()?;
        Some(BlockSparseStats {
            n: s.n,
            blocks: s.key.dims.len(),
            pairs: s.key.pairs.len(),
            supernodes: s.n_supernodes(),
            max_supernode: s.max_w,
            factor_values: s.l_len + s.u_len,
            flops: s.flops,
            analyses: self.analyses,
        })
    }

    fn dim(&self) -> usize {
        self.symbolic().map_or(0, |s| s.n)
    }
}

/// Scratch of faer's dense LU of a `w × w` diagonal block.
fn dense_lu_scratch(w: usize) -> StackReq {
    faer_lu::lu_in_place_scratch::<usize, f64>(w, w, Par::Seq, Spec::default())
}

macro_rules! shared_api {
    ($(#[$doc:meta])* $name:ident = $kind:expr; $(#[$block_doc:meta])*) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name(Engine);

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl $name {
            /// An empty factorization (no pattern).
            pub fn new() -> Self {
                Self(Engine::new($kind))
            }

            $(#[$block_doc])*
            pub fn block_mut(&mut self, a: usize, b: usize) -> Result<BlockViewMut<'_>, SparseError> {
                self.0.block_mut(a, b)
            }

            /// Analyses the block pattern `dims` (block sizes, all ≥ 1) and `pairs` (coupled
            /// blocks, any order and orientation, duplicates allowed), or reuses the current or a
            /// cached analysis of the same pattern. Values are unspecified afterwards (call
            /// [`Self::clear_values`]).
            pub fn analyze(
                &mut self,
                dims: &[usize],
                pairs: &[(usize, usize)],
            ) -> Result<Reuse, SparseError> {
                self.0.analyze(dims, pairs)
            }

            /// Keeps up to `capacity` (≥ 1) analyses for reuse (default 4). Islands of a scene
            /// alternate between patterns within a solve; one factorization object with a cache
            /// at least as large as the number of large islands analyses each pattern once.
            pub fn set_cache_capacity(&mut self, capacity: usize) {
                self.0.set_cache_capacity(capacity)
            }

            /// Sets every stored value (the pattern's blocks and the fill) to zero.
            pub fn clear_values(&mut self) {
                self.0.clear_values()
            }

            /// Sets the stored values outside the pattern's blocks (the fill) to zero and leaves
            /// the blocks' values unspecified: the caller writes every entry of every block of
            /// the pattern (every `(a, a)` and, per coupled pair, its stored block or blocks)
            /// before [`Self::factor`].
            pub(crate) fn clear_fill(&mut self) {
                self.0.clear_fill()
            }

            /// Matrix size of the current pattern (0 before any analysis).
            pub fn dim(&self) -> usize {
                self.0.dim()
            }

            /// Figures of the current analysis, `None` before any.
            pub fn stats(&self) -> Option<BlockSparseStats> {
                self.0.stats()
            }

            /// The stored block (a, b) as raw storage: a slice starting at its (0, 0) entry and
            /// its row and column strides (entry (r, c) at `r·rs + c·cs`); the same storage as
            /// [`Self::block_mut`], for assembly kernels that work on raw columns.
            pub fn block_slice_mut(
                &mut self,
                a: usize,
                b: usize,
            ) -> Result<(&mut [f64], usize, usize), SparseError> {
                self.0.block_slice_mut(a, b)
            }

            /// Where block (a, b) (original block indices) is stored, for assembly kernels that
            /// precompute their destinations once per analysis and then write through
            /// [`Self::values_mut`].
            pub fn block_location(&self, a: usize, b: usize) -> Result<BlockLocation, SparseError> {
                self.0.block_location(a, b)
            }

            /// The value arrays (L panels, U panels) of the current analysis, written at the
            /// offsets of [`Self::block_location`]; marks the factorization stale.
            pub fn values_mut(&mut self) -> (&mut [f64], &mut [f64]) {
                self.0.values_mut()
            }

            /// Factors the assembled matrix. On error the factorization is unusable until the
            /// values are assembled again.
            pub fn factor(&mut self) -> Result<(), SparseError> {
                self.0.factor()
            }

            /// Solves `A x = rhs` in place (`rhs` of length [`Self::dim`], original scalar order)
            /// with the last successful factorization.
            pub fn solve_in_place(&mut self, rhs: &mut [f64]) -> Result<(), SparseError> {
                self.0.solve_in_place(rhs)
            }

            /// Solves `Aᵀ x = rhs` in place with the same factors as [`Self::solve_in_place`]
            /// (adjoint solves; for the LDLᵀ of a symmetric matrix the same solve).
            pub fn solve_transposed_in_place(&mut self, rhs: &mut [f64]) -> Result<(), SparseError> {
                self.0.solve_transposed_in_place(rhs)
            }
        }
    };
}

shared_api! {
    /// Sparse LU with row exchanges inside supernodes of a structurally symmetric block matrix (see
    /// the module docs): two-way TAMSI and interior-point Newton matrices of large islands.
    BlockSparseLu = Kind::Lu;
    /// The stored block (a, b) (`dims[a] × dims[b]`, column-major with a leading dimension) of
    /// the current pattern, to add values into. Every block `(a, a)` and, for each coupled pair,
    /// both `(a, b)` and `(b, a)` exist.
}

shared_api! {
    /// Sparse LDLᵀ with symmetric exchanges inside supernodes of a symmetric block matrix (see the
    /// module docs): one-way TAMSI Newton matrices of large islands. Only the lower triangle is
    /// read.
    BlockSparseLdlt = Kind::Ldlt;
    /// The stored block (a, b) of the current pattern. Blocks `(a, b)` and `(b, a)` are the same
    /// storage (one view is the transpose of the other): assemble each coupled pair once, in
    /// either orientation. Of a diagonal block `(a, a)` only the lower triangle is read.
}
