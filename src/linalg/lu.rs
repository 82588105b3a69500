//! Partial-pivot LU, `P A = L U`, that never reports failure (`docs/tamsi.md` §5.2, Eigen's
//! `PartialPivLU`).
//!
//! An exactly singular matrix is factored anyway; the solve then divides by zero and returns
//! non-finite values, which is what Drake's two-way TAMSI relies on (the NaN flows on into the
//! limiter).
//!
//! Two kernels, one contract:
//! * below [`BLOCKED_MIN_DIM`] the right-looking elimination in Eigen's order (the pivot is the
//!   first largest |entry|; a zero pivot column is left unscaled, as Eigen does; every entry
//!   receives `a -= l·u` one step at a time), compiled inside the AVX2 dispatch, on columns
//!   padded to a multiple of 4 rows ([`padded_dim`]): up to 12 rows the textbook loop as
//!   straight-line code ([`factor_unrolled`]), 13–15 rows the textbook loop on chunks of 4 rows,
//!   from 16 rows the same operations regrouped in panels of 4 columns ([`factor_panels`]), which
//!   keeps the bits and halves the time at n = 30–60;
//! * from [`BLOCKED_MIN_DIM`] up, faer's recursive blocked LU (matrix-multiply updates, runtime
//!   SIMD dispatch), which is 2–4× faster than any unblocked LU at n ≥ 100 and allocates nothing
//!   with a preallocated scratch stack. On a zero pivot column it scales by 1/0, so its factors
//!   hold inf/NaN where Eigen's hold zeros; the solve is non-finite in both cases.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::lu::partial_pivoting::factor as faer_lu;
use faer::{MatMut, Par, Spec};
use nalgebra::{DMatrixViewMut, Dyn, U1};

use super::padded::LineAligned;
use super::simd::{Simd, WithSimd};

/// Size from which the blocked kernel is used (measured crossover on the project's machine kind:
/// faer is slower below ~50 and faster above ~60).
pub const BLOCKED_MIN_DIM: usize = 64;

/// Partial-pivot LU factorization in owned, grow-only storage.
///
/// Usage: fill [`PartialPivLu::matrix_mut`] (column-major `n×n`), call
/// [`PartialPivLu::factor`], then [`PartialPivLu::solve_in_place`].
pub struct PartialPivLu {
    n: usize,
    /// Leading dimension of `lu`: `n` as filled through [`matrix_mut`](Self::matrix_mut) or
    /// [`storage_mut`](Self::storage_mut), [`padded_dim(n)`](padded_dim) once factored (or as
    /// filled through [`padded_storage_mut`](Self::padded_storage_mut)).
    ld: usize,
    /// Column-major `n×n` with leading dimension `ld`: the matrix, then the factors (unit-lower L
    /// below the diagonal, U on and above it; below [`BLOCKED_MIN_DIM`] the columns of L without
    /// the row swaps of later panels of 4 steps, see [`factor_panels`]).
    lu: LineAligned,
    /// Below [`BLOCKED_MIN_DIM`]: step k swapped rows k and `piv[k]` (≥ k).
    piv: Vec<usize>,
    /// From [`BLOCKED_MIN_DIM`] up: row i of `P A` is row `perm[i]` of A.
    perm: Vec<usize>,
    perm_inv: Vec<usize>,
    /// Scratch stack of the blocked kernel, sized for `stack_dim`.
    stack: MemBuffer,
    stack_dim: usize,
}

impl std::fmt::Debug for PartialPivLu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PartialPivLu")
            .field("n", &self.n)
            .field("perm", &self.perm.get(..self.n))
            .finish_non_exhaustive()
    }
}

impl Default for PartialPivLu {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

impl Clone for PartialPivLu {
    fn clone(&self) -> Self {
        let mut c = Self::with_capacity(self.stack_dim.max(self.n));
        c.n = self.n;
        c.ld = self.ld;
        c.lu.clone_from(&self.lu);
        c.piv.clone_from(&self.piv);
        c.perm.clone_from(&self.perm);
        c.perm_inv.clone_from(&self.perm_inv);
        c
    }
}

impl PartialPivLu {
    /// An empty factorization with storage for `n×n` matrices.
    pub fn with_capacity(n: usize) -> Self {
        let mut f = Self {
            n: 0,
            ld: 0,
            lu: LineAligned::default(),
            piv: Vec::new(),
            perm: Vec::new(),
            perm_inv: Vec::new(),
            stack: MemBuffer::new(faer::dyn_stack::StackReq::EMPTY),
            stack_dim: 0,
        };
        f.reserve(n);
        f
    }

    /// Makes sure `n×n` problems need no further allocation.
    pub fn reserve(&mut self, n: usize) {
        self.lu.grow(padded_dim(n) * n);
        if self.piv.len() < n {
            self.piv.resize(n, 0);
        }
        // The permutations only for the blocked kernel: a small matrix's storage is two
        // allocations fewer (issue 30 item 5).
        if n >= BLOCKED_MIN_DIM && self.perm.len() < n {
            self.perm.resize(n, 0);
            self.perm_inv.resize(n, 0);
        }
        if n >= BLOCKED_MIN_DIM && n > self.stack_dim {
            self.stack =
                MemBuffer::new(faer_lu::lu_in_place_scratch::<usize, f64>(n, n, Par::Seq, Spec::default()));
            self.stack_dim = n;
        }
    }

    /// [`reserve`](Self::reserve) that reports allocation failure instead of aborting.
    pub fn try_reserve(&mut self, n: usize) -> Result<(), super::AllocationFailed> {
        let len = padded_dim(n).checked_mul(n).ok_or(super::AllocationFailed)?;
        self.lu.try_grow(len).map_err(|_| super::AllocationFailed)?;
        if n >= BLOCKED_MIN_DIM {
            super::try_grow(&mut self.perm, n, 0)?;
            super::try_grow(&mut self.perm_inv, n, 0)?;
        }
        super::try_grow(&mut self.piv, n, 0)?;
        self.reserve(n);
        Ok(())
    }

    /// The current `n×n` storage (the matrix before [`factor`](Self::factor), the factors after,
    /// in the kernel's layout: see the `lu` field), column-major with leading dimension
    /// [`leading_dim`](Self::leading_dim).
    pub fn storage(&self) -> &[f64] {
        &self.lu[..self.ld * self.n]
    }

    /// Size of the current matrix.
    pub fn dim(&self) -> usize {
        self.n
    }

    /// Leading dimension of [`storage`](Self::storage): `n` after [`matrix_mut`](Self::matrix_mut)
    /// or [`storage_mut`](Self::storage_mut), [`padded_dim(n)`](padded_dim) after
    /// [`padded_storage_mut`](Self::padded_storage_mut) or [`factor`](Self::factor).
    pub fn leading_dim(&self) -> usize {
        self.ld
    }

    /// The `n×n` column-major matrix to fill before [`PartialPivLu::factor`]. Its previous
    /// contents are unspecified. Allocates only when `n` exceeds every size seen before.
    pub fn matrix_mut(&mut self, n: usize) -> DMatrixViewMut<'_, f64> {
        DMatrixViewMut::from_slice(self.storage_mut(n), n, n)
    }

    /// [`PartialPivLu::matrix_mut`] in the layout the factorization works in (leading dimension
    /// [`padded_dim(n)`](padded_dim), as [`padded_storage_mut`](Self::padded_storage_mut)):
    /// [`factor`](Self::factor) then does not move the columns apart first.
    pub fn padded_matrix_mut(&mut self, n: usize) -> DMatrixViewMut<'_, f64> {
        let ld = padded_dim(n);
        DMatrixViewMut::from_slice_with_strides_generic(
            self.padded_storage_mut(n),
            Dyn(n),
            Dyn(n),
            U1,
            Dyn(ld),
        )
    }

    /// The same storage as [`PartialPivLu::matrix_mut`] as a column-major slice of length `n·n`
    /// (leading dimension `n`), for kernels that work on raw columns.
    pub fn storage_mut(&mut self, n: usize) -> &mut [f64] {
        self.reserve(n);
        self.n = n;
        self.ld = n;
        &mut self.lu[..n * n]
    }

    /// The storage in the layout the factorization works in, leading dimension
    /// `ld = padded_dim(n)` (a multiple of 4 below [`BLOCKED_MIN_DIM`], `n` from there on), as a
    /// slice of length `ld·n`: fill rows `0..n` of each column; rows `n..ld` are ignored. Saves
    /// the repacking that [`factor`](Self::factor) does after [`storage_mut`](Self::storage_mut).
    pub fn padded_storage_mut(&mut self, n: usize) -> &mut [f64] {
        self.reserve(n);
        self.n = n;
        self.ld = padded_dim(n);
        &mut self.lu[..self.ld * n]
    }

    /// Factors the matrix last filled through [`PartialPivLu::matrix_mut`] (or its slice forms),
    /// in place. Never fails (see the module docs for singular matrices).
    pub fn factor(&mut self) {
        let n = self.n;
        if n >= BLOCKED_MIN_DIM {
            let a = MatMut::from_column_major_slice_mut(&mut self.lu[..n * n], n, n);
            faer_lu::lu_in_place(
                a,
                &mut self.perm[..n],
                &mut self.perm_inv[..n],
                Par::Seq,
                MemStack::new(&mut self.stack),
                Spec::default(),
            );
        } else {
            let ld = padded_dim(n);
            if self.ld != ld {
                // Filled with leading dimension n: move the columns apart, last first (column c
                // moves from c·n to c·ld ≥ c·n, past every column not yet moved).
                for c in (1..n).rev() {
                    self.lu.copy_within(c * n..(c + 1) * n, c * ld);
                }
                self.ld = ld;
            }
            let a = &mut self.lu[..ld * n];
            let piv = &mut self.piv[..n];
            // The straight-line kernels in a dispatch of their own: in one build with them in
            // the panels' function, the n = 30 factorization took 34 % more instructions.
            if n <= UNROLLED_MAX_DIM {
                super::simd::dispatch(Factor::<true> { a, piv, n });
            } else {
                super::simd::dispatch(Factor::<false> { a, piv, n });
            }
        }
    }

    /// Solves `A x = b` in place with the factors. `b.len()` must be the matrix size. `tmp` is
    /// scratch of at least the same length (the row permutation is applied out of place).
    pub fn solve_in_place(&self, b: &mut [f64], tmp: &mut [f64]) {
        super::simd::dispatch(Solve { lu: self, b, tmp })
    }

    /// Forward and back substitution with the factors, column oriented: every entry receives its
    /// updates one at a time, `y_i -= l_ij·y_j` in increasing j, then `x_i -= u_ij·x_j` in
    /// decreasing j (Eigen's triangular solves). Below [`BLOCKED_MIN_DIM`] the columns of L lack
    /// the row swaps of later panels (see [`factor_panels`]), so the swaps of each panel are
    /// applied to y just before its columns: the same values meet in the same operations as with
    /// `P b` and a fully swapped L (later swaps only move rows below the panel).
    #[inline(always)]
    fn solve_kernel(&self, b: &mut [f64], tmp: &mut [f64]) {
        let (n, ld) = (self.n, self.ld);
        assert_eq!(b.len(), n, "PartialPivLu::solve_in_place: right-hand side length");
        let lu = &self.lu[..ld * n];
        let piv = &self.piv[..n.min(self.piv.len())];
        if n < BLOCKED_MIN_DIM {
            match n {
                1 => solve_small::<1>(lu, piv, b),
                2 => solve_small::<2>(lu, piv, b),
                3 => solve_small::<3>(lu, piv, b),
                4 => solve_small::<4>(lu, piv, b),
                5 => solve_small::<5>(lu, piv, b),
                6 => solve_small::<6>(lu, piv, b),
                7 => solve_small::<7>(lu, piv, b),
                8 => solve_small::<8>(lu, piv, b),
                // Three contacts in the Delassus data form (issue 30 item 5), and ten.
                9 => solve_small::<9>(lu, piv, b),
                10 => solve_small::<10>(lu, piv, b),
                // Islands of two to four free bodies (issue 29): the loops unrolled, the same
                // operations.
                12 => solve_small::<12>(lu, piv, b),
                18 => solve_small::<18>(lu, piv, b),
                24 => solve_small::<24>(lu, piv, b),
                // The dense bench problem of 30 velocities (issue 29 item 6).
                30 => solve_small::<30>(lu, piv, b),
                _ => solve_small::<0>(lu, piv, b),
            }
        } else {
            let tmp = &mut tmp[..n];
            for (t, &p) in tmp.iter_mut().zip(&self.perm[..n]) {
                *t = b[p];
            }
            for j in 0..n {
                let yj = tmp[j];
                axpy_rows(&mut tmp[j + 1..], &lu[j * ld + j + 1..j * ld + n], yj);
            }
            back_substitute(lu, ld, tmp);
            b.copy_from_slice(tmp);
        }
    }
}

/// The solve in the layout of the kernels below [`BLOCKED_MIN_DIM`] (see
/// [`PartialPivLu::solve_in_place`]), in place in `b`. `N > 0` is the size known at compile time
/// (every loop unrolls); `N = 0` takes it from `b`.
#[inline(always)]
fn solve_small<const N: usize>(lu: &[f64], piv: &[usize], b: &mut [f64]) {
    let n = if N > 0 { N } else { b.len() };
    let ld = padded_dim(n);
    let (lu, piv, b) = (&lu[..ld * n], &piv[..n], &mut b[..n]);
    // L y = P b, unit lower, the swaps panel by panel.
    for k0 in (0..n).step_by(CHUNK) {
        let panel = k0..(k0 + CHUNK).min(n);
        for (j, &p) in piv[panel.clone()].iter().enumerate() {
            b.swap(k0 + j, p);
        }
        for j in panel {
            let yj = b[j];
            axpy_rows(&mut b[j + 1..], &lu[j * ld + j + 1..j * ld + n], yj);
        }
    }
    back_substitute(lu, ld, b);
}

/// `U x = y` in place (U upper triangular in `lu`, leading dimension `ld`).
#[inline(always)]
fn back_substitute(lu: &[f64], ld: usize, y: &mut [f64]) {
    for j in (0..y.len()).rev() {
        let xj = y[j] / lu[j + j * ld];
        y[j] = xj;
        axpy_rows(&mut y[..j], &lu[j * ld..j * ld + j], xj);
    }
}

/// `y[i] -= x[i]·s` for every i (`x` at least as long as `y`), a chunk at a time.
#[inline(always)]
fn axpy_rows(y: &mut [f64], x: &[f64], s: f64) {
    let (xc, xt) = x[..y.len()].as_chunks::<CHUNK>();
    let (yc, yt) = y.as_chunks_mut::<CHUNK>();
    for (y, x) in yc.iter_mut().zip(xc) {
        *y = [y[0] - x[0] * s, y[1] - x[1] * s, y[2] - x[2] * s, y[3] - x[3] * s];
    }
    for (y, &x) in yt.iter_mut().zip(xt) {
        *y -= x * s;
    }
}

/// Rows per chunk of the small kernel's column layout (one AVX2 vector).
const CHUNK: usize = 4;
type Chunk = [f64; CHUNK];

/// The leading dimension [`PartialPivLu`] factors `n×n` matrices with: `n` rounded up to a
/// multiple of 4 below [`BLOCKED_MIN_DIM`] (so that every column starts at a chunk boundary), `n`
/// from there on.
pub const fn padded_dim(n: usize) -> usize {
    if n < BLOCKED_MIN_DIM { n.div_ceil(CHUNK) * CHUNK } else { n }
}

/// Size from which [`factor_panels`] beats the unblocked loop (measured: 14 and below the
/// unblocked loop is faster, 16 and up the panels).
const PANELS_MIN_DIM: usize = 16;
/// Size from which [`factor_chunks`] is used (measured: it beat the scalar loop from 11 up, and
/// [`factor_unrolled`] beats it up to [`UNROLLED_MAX_DIM`]).
const CHUNKS_MIN_DIM: usize = UNROLLED_MAX_DIM + 1;

/// Largest size factored by [`factor_unrolled`] (measured, `docs/performance.md` §1: at n = 6
/// and 12 it takes 37 % and 47 % of the instructions of the loops it replaced, and its code
/// grows as n³).
const UNROLLED_MAX_DIM: usize = 12;

/// The factorization below [`BLOCKED_MIN_DIM`], inside the AVX2 dispatch. `UNROLLED`:
/// [`factor_unrolled`] for `n ≤` [`UNROLLED_MAX_DIM`] (TAMSI's small dense problems, and the
/// interior point's small Delassus systems, n = 9 and 10, `docs/ipm.md` §11.10: the fixed cost of
/// an iteration on the smallest FC3D files); otherwise the chunk and panel kernels. Two
/// instantiations, so two dispatched functions (see [`PartialPivLu::factor`]).
struct Factor<'a, const UNROLLED: bool> {
    a: &'a mut [f64],
    piv: &'a mut [usize],
    n: usize,
}

impl<const UNROLLED: bool> WithSimd for Factor<'_, UNROLLED> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        if UNROLLED {
            let (a, piv, n) = (self.a, self.piv, self.n);
            // One instantiation per size up to UNROLLED_MAX_DIM.
            macro_rules! sizes {
                ($($k:literal)*) => {
                    match n {
                        $($k => factor_unrolled::<$k>(a, piv),)*
                        _ => {}
                    }
                };
            }
            sizes!(1 2 3 4 5 6 7 8 9 10 11 12);
        } else if S::F64_LANES == CHUNK && self.n >= PANELS_MIN_DIM {
            // Islands of three and four free bodies (issue 29): the size a constant of the
            // inlined kernel, the same operations (30 and 60 as constants measured no gain).
            match self.n {
                18 => factor_panels(simd, self.a, self.piv, 18),
                24 => factor_panels(simd, self.a, self.piv, 24),
                n => factor_panels(simd, self.a, self.piv, n),
            }
        } else if S::F64_LANES == CHUNK && self.n >= CHUNKS_MIN_DIM {
            match self.n {
                13 => factor_chunks::<S, 13>(simd, self.a, self.piv, 13),
                14 => factor_chunks::<S, 14>(simd, self.a, self.piv, 14),
                15 => factor_chunks::<S, 15>(simd, self.a, self.piv, 15),
                n => factor_chunks::<S, 0>(simd, self.a, self.piv, n),
            }
        } else {
            factor_unblocked_piv(self.a, self.piv, self.n, padded_dim(self.n));
        }
    }
}

/// One chunk as a vector (`S::F64_LANES == CHUNK`).
#[inline(always)]
fn load<S: Simd>(x: &Chunk) -> S::f64s {
    S::as_simd_f64s(x).0[0]
}

#[inline(always)]
fn store<S: Simd>(x: &mut Chunk, v: S::f64s) {
    S::as_mut_simd_f64s(x).0[0] = v;
}

/// `x − l·u` (a rounded product, then a rounded difference).
#[inline(always)]
fn sub_mul<S: Simd>(simd: S, x: S::f64s, l: S::f64s, u: S::f64s) -> S::f64s {
    simd.sub_f64s(x, simd.mul_f64s(l, u))
}

/// The unblocked LU of [`factor_unblocked`] (same pivots, same operations on every entry in the
/// same order, so the same bits) reorganized for small matrices in the padded layout
/// (`ld = padded_dim(n)`, `a.len() = ld·n`), one vector per chunk of 4 rows:
///
/// * the columns are factored in panels of [`CHUNK`] columns; inside a panel, step k picks the
///   pivot of column k, swaps rows k and p in the panel's columns, scales column k and updates
///   the panel's later columns, as the unblocked loop does;
/// * then every later column receives the panel's row swaps and its ≤ 4 rank-1 updates in one
///   pass, `x = (((x − l₀u₀) − l₁u₁) − l₂u₂) − l₃u₃` chunk by chunk (the panel's first row is a
///   chunk boundary, so whole chunks hold the rows below the panel). The next panel's columns
///   get it first; the others while the next panel is factored, a few columns after each of
///   its steps, so that the processor has independent work while a step waits on the one
///   before (a step is a chain of dependent operations: pivot search, division, update);
/// * the columns of L keep the row order of the end of their panel (`piv[k]` is step k's
///   pivot row): the swaps of later panels are applied to the right-hand side by the solve.
///
/// Each entry thus receives `a[r][c] -= l[r][j]·u[j][c]` in increasing j with the values the
/// unblocked loop uses: row swaps only move rows, and the rows that a later swap moves are below
/// every row an earlier update reads. Rows `n..ld` (padding) are zeroed first; they take part in
/// the chunk arithmetic (staying 0, or NaN after a non-finite pivot) and are never read back into
/// rows `0..n` nor chosen as pivots.
#[inline(always)]
fn factor_panels<S: Simd>(simd: S, a: &mut [f64], piv: &mut [usize], n: usize) {
    let ld = padded_dim(n);
    let nq = ld / CHUNK;
    if n == 0 {
        return;
    }
    let (cols, _) = a.as_chunks_mut::<CHUNK>();
    let cols = &mut cols[..nq * n];
    if !n.is_multiple_of(CHUNK) {
        for col in cols.chunks_exact_mut(nq) {
            col[nq - 1][n % CHUNK..].fill(0.0);
        }
    }
    let iota = load::<S>(&[0.0, 1.0, 2.0, 3.0]);
    for k0 in (0..n).step_by(CHUNK) {
        let w = (n - k0).min(CHUNK);
        let (done, rest) = cols.split_at_mut(k0 * nq);
        let (panel, later) = rest.split_at_mut(w * nq);
        let (piv_done, piv_rest) = piv.split_at_mut(k0);
        let piv_panel = &mut piv_rest[..w];
        // The previous panel's update of the columns after this panel (its update of this
        // panel's columns is done), spread over this panel's steps so that the processor has
        // independent work while each step waits on the one before.
        let pending = later.len() / nq;
        let per_step = pending.div_ceil(w);
        for s in 0..w {
            factor_step(simd, panel, piv_panel, k0, s, nq, iota);
            if k0 > 0 {
                let cols =
                    &mut later[(s * per_step).min(pending) * nq..((s + 1) * per_step).min(pending) * nq];
                let prev = &done[(k0 - CHUNK) * nq..];
                update_trailing::<S>(simd, prev, cols, &piv_done[k0 - CHUNK..], k0 - CHUNK, nq);
            }
        }
        // This panel's update of the next panel (a next panel exists only after a full one).
        let next = (n - k0 - w).min(CHUNK);
        if next > 0 {
            update_trailing::<S>(simd, panel, &mut later[..next * nq], piv_panel, k0, nq);
        }
    }
}

/// The unblocked loop on whole chunks, for matrices below [`PANELS_MIN_DIM`]: step k is
/// [`factor_step`] on the columns from the start of k's group of 4 to the last, so the layout is
/// that of [`factor_panels`]. `N > 0` is the size known at compile time (the loops over chunks
/// unroll); `N = 0` takes it from `n`.
#[inline(always)]
fn factor_chunks<S: Simd, const N: usize>(simd: S, a: &mut [f64], piv: &mut [usize], n: usize) {
    let n = if N > 0 { N } else { n };
    let ld = padded_dim(n);
    let nq = ld / CHUNK;
    let (cols, _) = a.as_chunks_mut::<CHUNK>();
    let cols = &mut cols[..nq * n];
    if !n.is_multiple_of(CHUNK) {
        for col in cols.chunks_exact_mut(nq) {
            col[nq - 1][n % CHUNK..].fill(0.0);
        }
    }
    let iota = load::<S>(&[0.0, 1.0, 2.0, 3.0]);
    for k in 0..n {
        let k0 = k / CHUNK * CHUNK;
        factor_step(simd, &mut cols[k0 * nq..], &mut piv[k0..], k0, k - k0, nq, iota);
    }
}

/// Step `k0 + s` of the panel whose columns are `panel` (rows and columns from `k0`): the pivot of
/// column s, the row swap in the panel's columns, the scaling of column s below the diagonal and
/// the rank-1 update of the panel's later columns.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn factor_step<S: Simd>(
    simd: S,
    panel: &mut [Chunk],
    piv: &mut [usize],
    k0: usize,
    s: usize,
    nq: usize,
    iota: S::f64s,
) {
    let k = k0 + s;
    let (kq, kl) = (k / CHUNK, k % CHUNK);
    let (p, best) = find_pivot(simd, &panel[s * nq + kq..(s + 1) * nq], k, iota);
    piv[s] = k;
    // Lanes of chunk kq below row k.
    let below = simd.greater_than_f64s(iota, simd.splat_f64s(kl as f64));
    if best != 0.0 {
        if p != k {
            for col in panel.chunks_exact_mut(nq) {
                col.as_flattened_mut().swap(k, p);
            }
            piv[s] = p;
        }
        let col = &mut panel[s * nq + kq..(s + 1) * nq];
        let pivot = simd.splat_f64s(col[0][kl]);
        let (first, rest) = col.split_first_mut().unwrap();
        let x = load::<S>(first);
        store::<S>(first, simd.select_f64s(below, simd.div_f64s(x, pivot), x));
        for x in rest {
            store::<S>(x, simd.div_f64s(load::<S>(x), pivot));
        }
    }
    // Rank-1 update of the panel's later columns.
    let (left, right) = panel.split_at_mut((s + 1) * nq);
    let l = &left[s * nq + kq..];
    for col in right.chunks_exact_mut(nq) {
        let col = &mut col[kq..];
        let u = simd.splat_f64s(col[0][kl]);
        let (first, rest) = col.split_first_mut().unwrap();
        let x = load::<S>(first);
        let y = sub_mul(simd, x, load::<S>(&l[0]), u);
        store::<S>(first, simd.select_f64s(below, y, x));
        for (x, l) in rest.iter_mut().zip(&l[1..]) {
            store::<S>(x, sub_mul(simd, load::<S>(x), load::<S>(l), u));
        }
    }
}

/// The pivot of step k: the first row at or below k with the largest |entry| of `col` (column k
/// from chunk `k / CHUNK` on), NaN never winning, unless the diagonal itself is NaN (then k);
/// and that largest |entry|. Lane by lane, then across the lanes (largest value, then smallest
/// row), which finds the same row as the scalar scan of the unblocked loop.
#[inline(always)]
fn find_pivot<S: Simd>(simd: S, col: &[Chunk], k: usize, iota: S::f64s) -> (usize, f64) {
    let kl = k % CHUNK;
    let diagonal = col[0][kl];
    if diagonal.is_nan() {
        return (k, diagonal.abs());
    }
    let none = simd.splat_f64s(-1.0);
    let step = simd.splat_f64s(CHUNK as f64);
    let mut row = simd.add_f64s(iota, simd.splat_f64s((k - kl) as f64));
    let x = simd.abs_f64s(load::<S>(&col[0]));
    let mut best =
        simd.select_f64s(simd.greater_than_or_equal_f64s(iota, simd.splat_f64s(kl as f64)), x, none);
    let mut best_row = row;
    for c in &col[1..] {
        row = simd.add_f64s(row, step);
        let v = simd.abs_f64s(load::<S>(c));
        let wins = simd.greater_than_f64s(v, best);
        best = simd.select_f64s(wins, v, best);
        best_row = simd.select_f64s(wins, row, best_row);
    }
    let (mut b, mut r) = ([0.0; CHUNK], [0.0; CHUNK]);
    store::<S>(&mut b, best);
    store::<S>(&mut r, best_row);
    let (mut pb, mut pr) = (b[0], r[0]);
    for i in 1..CHUNK {
        if b[i] > pb || (b[i] == pb && r[i] < pr) {
            (pb, pr) = (b[i], r[i]);
        }
    }
    (pr as usize, pb)
}

/// Applies the [`CHUNK`] steps of the panel starting at row/column `k0` (its factored columns `panel`,
/// its row swaps `pivots`) to every column of `right`: the swaps, the triangular part on the
/// panel's rows, then the rank-4 update of the rows below, chunk by chunk.
#[inline(always)]
fn update_trailing<S: Simd>(
    simd: S,
    panel: &[Chunk],
    right: &mut [Chunk],
    pivots: &[usize],
    k0: usize,
    nq: usize,
) {
    let q0 = k0 / CHUNK;
    let len = nq - q0 - 1;
    // Arrays filled by plain loops, not `std::array::from_fn`: LLVM inlined `from_fn` here in
    // some builds and called it in others (a call per column for `u` below, +25 % instructions
    // in this kernel), depending on how unrelated code was split into codegen units
    // (`docs/performance.md` §3, sixth pass).
    let mut l: [&[Chunk]; CHUNK] = [&[]; CHUNK];
    let mut top_l: [Chunk; CHUNK] = [[0.0; CHUNK]; CHUNK];
    for (k, (l, top)) in l.iter_mut().zip(top_l.iter_mut()).enumerate() {
        *l = &panel[k * nq + q0 + 1..k * nq + q0 + 1 + len];
        *top = panel[k * nq + q0];
    }
    let [l0, l1, l2, l3] = l;
    // The swaps first, for every column: a vector load of a chunk that a scalar store has just
    // written would wait for the store to reach the cache, so the loads come a pass later. One
    // pass with all of the panel's swaps per column, in order (a pivot that stayed swaps its row
    // with itself): one loop over the columns instead of one per swap.
    if pivots.iter().enumerate().any(|(k, &p)| p != k0 + k) {
        for col in right.chunks_exact_mut(nq) {
            let col = col.as_flattened_mut();
            for (k, &p) in pivots.iter().enumerate() {
                col.swap(k0 + k, p);
            }
        }
    }
    for col in right.chunks_exact_mut(nq) {
        let (top, rest) = col[q0..].split_first_mut().unwrap();
        let mut t = *top;
        for k in 0..CHUNK {
            let u = t[k];
            for i in k + 1..CHUNK {
                t[i] -= top_l[k][i] * u;
            }
        }
        *top = t;
        let mut u = [simd.splat_f64s(0.0); CHUNK];
        for (u, &t) in u.iter_mut().zip(&t) {
            *u = simd.splat_f64s(t);
        }
        let rest = &mut rest[..len];
        // The rows zipped with the four columns of L: no bounds check per row, whatever the
        // inliner proves about their lengths (measured: a build whose inlining left one check
        // per column of L made the n = 30 factorization 24 % more instructions).
        for ((((x, l0), l1), l2), l3) in rest.iter_mut().zip(l0).zip(l1).zip(l2).zip(l3) {
            let mut y = load::<S>(x);
            y = sub_mul(simd, y, load::<S>(l0), u[0]);
            y = sub_mul(simd, y, load::<S>(l1), u[1]);
            y = sub_mul(simd, y, load::<S>(l2), u[2]);
            y = sub_mul(simd, y, load::<S>(l3), u[3]);
            store::<S>(x, y);
        }
    }
}

impl PartialPivLu {
    /// Solves `Aᵀ x = b` in place with the factors of `A` (one factorization serves both
    /// systems, e.g. adjoint solves). `b.len()` must be the matrix size; `tmp` is scratch of at
    /// least the same length. As for [`solve_in_place`](Self::solve_in_place), a singular matrix
    /// gives non-finite values.
    pub fn solve_transposed_in_place(&self, b: &mut [f64], tmp: &mut [f64]) {
        super::simd::dispatch(SolveTransposed { lu: self, b, tmp })
    }

    /// The solve of [`solve_kernel`](Self::solve_kernel) transposed. From [`BLOCKED_MIN_DIM`]
    /// (`P A = L U`, L fully swapped): `Uᵀ z = b`, `Lᵀ y = z`, `x = Pᵀ y`. Below it the forward
    /// solve is `b ← L̃ₚ⁻¹ Sₚ ⋯ L̃₀⁻¹ S₀ b` panel by panel (Sₚ the panel's swaps in order, L̃ₚ its
    /// columns of L), so the transposed one runs `Uᵀ z = b`, then the panels last first: each
    /// column's `z_j −= l_jᵀ z` in decreasing j, then the panel's swaps in reverse order. Both
    /// triangular solves are dot products over contiguous columns of the stored factors.
    #[inline(always)]
    fn solve_transposed_kernel(&self, b: &mut [f64], tmp: &mut [f64]) {
        let (n, ld) = (self.n, self.ld);
        assert_eq!(b.len(), n, "PartialPivLu::solve_transposed_in_place: right-hand side length");
        let lu = &self.lu[..ld * n];
        let dot = |col: &[f64], z: &[f64]| col.iter().zip(z).fold(0.0, |acc, (&a, &x)| acc + a * x);
        if n >= BLOCKED_MIN_DIM {
            let z = &mut tmp[..n];
            z.copy_from_slice(b);
            upper_transposed_solve(lu, ld, z, dot);
            // Lᵀ y = z, then row i of P A is row perm[i] of A, so x[perm[i]] = y_i.
            for j in (0..n).rev() {
                z[j] -= dot(&lu[j * ld + j + 1..j * ld + n], &z[j + 1..]);
            }
            for (&p, &y) in self.perm[..n].iter().zip(z.iter()) {
                b[p] = y;
            }
        } else {
            upper_transposed_solve(lu, ld, b, dot);
            let piv = &self.piv[..n];
            for k0 in (0..n).step_by(CHUNK).rev() {
                let panel = k0..(k0 + CHUNK).min(n);
                for j in panel.clone().rev() {
                    b[j] -= dot(&lu[j * ld + j + 1..j * ld + n], &b[j + 1..]);
                }
                for j in panel.rev() {
                    b.swap(j, piv[j]);
                }
            }
        }
    }
}

/// `Uᵀ z = b` in place in `z` (U upper triangular in `lu`, leading dimension `ld`): row j of Uᵀ is
/// column j of U above the diagonal.
#[inline(always)]
fn upper_transposed_solve(lu: &[f64], ld: usize, z: &mut [f64], dot: impl Fn(&[f64], &[f64]) -> f64) {
    for j in 0..z.len() {
        let d = dot(&lu[j * ld..j * ld + j], &z[..j]);
        z[j] = (z[j] - d) / lu[j + j * ld];
    }
}

/// Factors a small `n×n` column-major matrix in place with the unblocked kernel, writing the row
/// permutation (`perm[i]` = original row of row i of `P A`). For callers that manage their own
/// storage, e.g. many small blocks.
pub(crate) fn factor_small_in_place(a: &mut [f64], perm: &mut [usize], n: usize) {
    super::simd::dispatch(FactorUnblocked { a, perm, n });
}

struct FactorUnblocked<'a> {
    a: &'a mut [f64],
    perm: &'a mut [usize],
    n: usize,
}

impl WithSimd for FactorUnblocked<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, _: S) {
        factor_unblocked(self.a, self.perm, self.n)
    }
}

struct Solve<'a> {
    lu: &'a PartialPivLu,
    b: &'a mut [f64],
    tmp: &'a mut [f64],
}

impl WithSimd for Solve<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, _: S) {
        self.lu.solve_kernel(self.b, self.tmp)
    }
}

struct SolveTransposed<'a> {
    lu: &'a PartialPivLu,
    b: &'a mut [f64],
    tmp: &'a mut [f64],
}

impl WithSimd for SolveTransposed<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, _: S) {
        self.lu.solve_transposed_kernel(self.b, self.tmp)
    }
}

/// Step `k` of the elimination on a column that has received all earlier updates: pick the first
/// largest |entry| at or below the diagonal (NaN never wins), swap rows k and p in columns
/// `first_col..n`, scale the sub-column by the pivot; a zero pivot column is left as it is
/// (Eigen). Returns the pivot row p (k when nothing was swapped).
// The pivot search is an index loop on purpose (see below).
#[allow(clippy::needless_range_loop)]
#[inline(always)]
fn pivot_and_scale(a: &mut [f64], n: usize, ld: usize, k: usize, first_col: usize) -> usize {
    let col = &a[k * ld..k * ld + n];
    let mut p = k;
    let mut best = col[k].abs();
    // An index loop, not `enumerate().skip()`: with the sizes constant ([`unrolled_step`]) it
    // unrolls as completely as a hand-written step did.
    for i in k + 1..n {
        let v = col[i].abs();
        if v > best {
            best = v;
            p = i;
        }
    }
    if best != 0.0 {
        if p != k {
            for j in first_col..n {
                a.swap(k + j * ld, p + j * ld);
            }
        }
        let pivot = a[k + k * ld];
        for x in &mut a[k * ld + k + 1..k * ld + n] {
            *x /= pivot;
        }
        p
    } else {
        k
    }
}

/// Right-looking LU with row partial pivoting in Eigen's order, one step at a time: pivot and
/// scale column k, then a rank-1 update of the trailing block. Every entry receives its updates
/// `a[r][c] -= l[r][j]·u[j][c]` one by one in increasing `j`.
#[inline(always)]
fn factor_unblocked(a: &mut [f64], perm: &mut [usize], n: usize) {
    for (i, p) in perm.iter_mut().enumerate() {
        *p = i;
    }
    for k in 0..n {
        let p = pivot_and_scale(a, n, n, k, 0);
        perm.swap(k, p);
        rank1_update(a, n, n, k);
    }
}

/// The unblocked loop in the layout of [`factor_panels`] (padded, the columns of L without the
/// swaps of later panels, `piv`): for CPUs whose vectors are not [`CHUNK`] wide.
fn factor_unblocked_piv(a: &mut [f64], piv: &mut [usize], n: usize, ld: usize) {
    for (k, p) in piv.iter_mut().enumerate().take(n) {
        *p = pivot_and_scale(a, n, ld, k, k / CHUNK * CHUNK);
        rank1_update(a, n, ld, k);
    }
}

/// [`factor_unblocked_piv`] for `N ≤` [`UNROLLED_MAX_DIM`] as straight-line code: step k is
/// [`unrolled_step`] with k a constant too, so that every loop bound is known and the loops
/// unroll completely (at these sizes the loop overhead and bounds checks cost more than the
/// arithmetic). The same operations on every entry in the same order, so the same bits.
#[inline(always)]
fn factor_unrolled<const N: usize>(a: &mut [f64], piv: &mut [usize]) {
    let (a, piv) = (&mut a[..padded_dim(N) * N], &mut piv[..N]);
    // Steps 0 to UNROLLED_MAX_DIM − 1 (those from N on do nothing).
    macro_rules! steps {
        ($($k:literal)*) => {
            $(unrolled_step::<N, $k>(a, piv);)*
        };
    }
    steps!(0 1 2 3 4 5 6 7 8 9 10 11);
}

/// Step `K` of [`factor_unblocked_piv`] ([`pivot_and_scale`], then [`rank1_update`]) on an
/// `N×N` matrix in the padded layout, with every size and index a constant; nothing when
/// `K ≥ N`.
#[inline(always)]
fn unrolled_step<const N: usize, const K: usize>(a: &mut [f64], piv: &mut [usize]) {
    if K >= N {
        return;
    }
    let ld = padded_dim(N);
    piv[K] = pivot_and_scale(a, N, ld, K, K / CHUNK * CHUNK);
    rank1_update(a, N, ld, K);
}

/// Rank-1 update of the trailing block after step k: `A22 -= l_k u_kᵀ`.
#[inline(always)]
fn rank1_update(a: &mut [f64], n: usize, ld: usize, k: usize) {
    let (left, right) = a[..ld * n].split_at_mut((k + 1) * ld);
    let l = &left[k * ld + k + 1..k * ld + n];
    for col in right.chunks_exact_mut(ld) {
        let u = col[k];
        for (x, &li) in col[k + 1..n].iter_mut().zip(l) {
            *x -= li * u;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::test_rng;

    #[test]
    fn both_kernels_solve_random_systems() {
        for &n in &[0usize, 1, 2, 5, 17, 63, 64, 65, 130] {
            let a = test_rng::matrix(n, n as u64 + 1);
            let x_true: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
            let b = &a * nalgebra::DVector::from_column_slice(&x_true);
            let mut f = PartialPivLu::with_capacity(n);
            f.matrix_mut(n).copy_from(&a);
            f.factor();
            let mut x = b.as_slice().to_vec();
            let mut tmp = vec![0.0; n];
            f.solve_in_place(&mut x, &mut tmp);
            for (xi, ti) in x.iter().zip(&x_true) {
                assert!((xi - ti).abs() < 1e-10, "n = {n}: {xi} vs {ti}");
            }
        }
    }

    /// The unblocked reference solve (column oriented, Eigen's order) on unpadded factors.
    fn reference_solve(lu: &[f64], perm: &[usize], n: usize, b: &[f64]) -> Vec<f64> {
        let mut y: Vec<f64> = perm.iter().map(|&p| b[p]).collect();
        for j in 0..n {
            for i in j + 1..n {
                y[i] -= lu[i + j * n] * y[j];
            }
        }
        for j in (0..n).rev() {
            y[j] /= lu[j + j * n];
            for i in 0..j {
                y[i] -= lu[i + j * n] * y[j];
            }
        }
        y
    }

    #[test]
    fn panel_kernel_matches_the_unblocked_loop_bit_for_bit() {
        let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        for n in 0..BLOCKED_MIN_DIM {
            for variant in 0..6 {
                let mut a = test_rng::matrix(n, 31 * n as u64 + variant);
                match variant {
                    // Ties for the pivot and exact zeros.
                    1 => a.iter_mut().for_each(|x| *x = (*x * 4.0).round()),
                    // A zero column (no pivot at that step) and a zero row.
                    2 if n > 2 => {
                        a.column_mut(n / 2).fill(0.0);
                        a.row_mut(n / 3).fill(0.0);
                    }
                    // Non-finite entries.
                    3 if n > 1 => {
                        a[(n - 1, 0)] = f64::NAN;
                        a[(0, n - 1)] = f64::INFINITY;
                    }
                    // Strongly graded rows: many swaps.
                    4 => {
                        for r in 0..n {
                            a.row_mut(r).scale_mut(1.5f64.powi(r as i32));
                        }
                    }
                    5 if n > 1 => a[(n - 1, n - 1)] = f64::NAN,
                    _ => {}
                }
                let mut reference = a.as_slice().to_vec();
                let mut perm = vec![0; n];
                factor_unblocked(&mut reference, &mut perm, n);
                let b: Vec<f64> = (0..n).map(|i| (i as f64 * 0.7).cos()).collect();
                let want = reference_solve(&reference, &perm, n, &b);
                for padded in [false, true] {
                    let mut f = PartialPivLu::with_capacity(n);
                    if padded {
                        let ld = padded_dim(n);
                        let s = f.padded_storage_mut(n);
                        s.fill(f64::NAN);
                        for c in 0..n {
                            s[c * ld..c * ld + n].copy_from_slice(a.column(c).as_slice());
                        }
                    } else {
                        f.matrix_mut(n).copy_from(&a);
                    }
                    f.factor();
                    let ld = f.leading_dim();
                    assert_eq!(ld, padded_dim(n));
                    // The kernel that the dispatch picks on CPUs without 4-wide vectors, on the
                    // same input in the same layout: same pivots and bits, and its solve too.
                    let mut fallback = f.clone();
                    for c in 0..n {
                        fallback.lu[c * ld..c * ld + n].copy_from_slice(a.column(c).as_slice());
                    }
                    let scalar = pulp::Scalar::new();
                    Factor::<false> { a: &mut fallback.lu[..ld * n], piv: &mut fallback.piv[..n], n }
                        .with_simd(scalar);
                    assert_eq!(fallback.piv[..n], f.piv[..n], "n = {n}, variant {variant}: fallback");
                    // The kernel leaves the swaps of later panels off the columns of L.
                    let mut factors = f.storage().to_vec();
                    let mut rows: Vec<usize> = (0..n).collect();
                    for (k, &p) in f.piv[..n].iter().enumerate() {
                        rows.swap(k, p);
                        for j in 0..k / CHUNK * CHUNK {
                            factors.swap(k + j * ld, p + j * ld);
                        }
                    }
                    assert_eq!(rows, perm, "n = {n}, variant {variant}");
                    for c in 0..n {
                        for r in 0..n {
                            let (x, y) = (factors[r + c * ld], reference[r + c * n]);
                            assert!(same(x, y), "n = {n}, variant {variant}, ({r}, {c}): {x} vs {y}");
                            let (x, z) = (f.storage()[r + c * ld], fallback.storage()[r + c * ld]);
                            assert!(same(x, z), "n = {n}, variant {variant}, ({r}, {c}): fallback {z}");
                        }
                    }
                    let mut x = b.clone();
                    f.solve_in_place(&mut x, &mut vec![0.0; n]);
                    for (x, y) in x.iter().zip(&want) {
                        assert!(same(*x, *y), "n = {n}, variant {variant}: solve {x} vs {y}");
                    }
                    let mut z = b.clone();
                    Solve { lu: &fallback, b: &mut z, tmp: &mut vec![0.0; n] }.with_simd(scalar);
                    for (z, y) in z.iter().zip(&want) {
                        assert!(same(*z, *y), "n = {n}, variant {variant}: fallback solve {z} vs {y}");
                    }
                }
            }
        }
    }

    #[test]
    fn both_kernels_solve_transposed_systems() {
        for &n in &[0usize, 1, 2, 5, 17, 63, 64, 65, 130] {
            let a = test_rng::matrix(n, 3 * n as u64 + 5);
            let x_true: Vec<f64> = (0..n).map(|i| (i as f64 * 0.61).cos()).collect();
            let b = a.transpose() * nalgebra::DVector::from_column_slice(&x_true);
            let mut f = PartialPivLu::with_capacity(n);
            f.matrix_mut(n).copy_from(&a);
            f.factor();
            let mut x = b.as_slice().to_vec();
            let mut tmp = vec![0.0; n];
            f.solve_transposed_in_place(&mut x, &mut tmp);
            for (xi, ti) in x.iter().zip(&x_true) {
                assert!((xi - ti).abs() < 1e-10, "n = {n}: {xi} vs {ti}");
            }
        }
    }

    #[test]
    fn singular_matrix_factors_and_solves_to_non_finite() {
        for &n in &[3usize, 80] {
            let mut a = test_rng::matrix(n, 7);
            a.column_mut(1).fill(0.0);
            let mut f = PartialPivLu::with_capacity(n);
            f.matrix_mut(n).copy_from(&a);
            f.factor();
            let mut x = vec![1.0; n];
            let mut tmp = vec![0.0; n];
            f.solve_in_place(&mut x, &mut tmp);
            assert!(x.iter().any(|v| !v.is_finite()), "n = {n}");
        }
    }
}
