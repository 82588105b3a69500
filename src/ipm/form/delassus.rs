//! The Delassus data form (`docs/ipm.md` §11.10): a problem given in contact space by its
//! Delassus matrix `W` (Siconos' and FCLIB's local problems `u = W r + q`), without M or J.
//!
//! The unknown "velocities" are the contacts' local velocities `v` (3 per contact: normal,
//! tangent 1, tangent 2), and the momentum rows read `v − v0 − hτ − W r = 0`: the velocity form
//! of §1.2 with `M = I`, `J = I` and `W` in place of `Jᵀ` in the momentum rows. Every operation of
//! [`Form`] is then a product with `W`'s 3×3 blocks, and the condensed Newton matrix is
//! `H = (1 + reg)·I + W·blkdiag(D_i)` (unsymmetric, LU), with `W`'s block pattern: block-sparse
//! when `W` is, factored by the supernodal [`BlockSparseLu`] whose analysis is reused while the
//! pattern holds (a dense LU below [`BLOCK_SPARSE_MIN_DIM`] or for a dense pattern, and as the
//! fallback when the restricted pivoting of the sparse LU fails).

use nalgebra::DMatrixView;

use super::Form;
use crate::ipm::{ContactModel, IpmError};
use crate::linalg::simd;
use crate::linalg::{BLOCK_SPARSE_MIN_DIM, BlockSparseLu, PartialPivLu, SparseError, padded_dim};

/// Block density (nonzero blocks / nc²) above which the dense LU is used.
const DENSE_FROM: f64 = 0.5;

/// A sparse LU that is not cloned (its analysis is redone by the next solve), so that the
/// workspaces that hold one stay `Clone`.
#[derive(Debug, Default)]
pub(crate) struct SparseSlot(pub Option<Box<BlockSparseLu>>);

impl Clone for SparseSlot {
    fn clone(&self) -> Self {
        Self(None)
    }
}

impl SparseSlot {
    /// The factorization, created on first use.
    pub fn get(&mut self) -> &mut BlockSparseLu {
        self.0.get_or_insert_with(Default::default)
    }
}

/// `W`'s nonzero 3×3 blocks by block column (the diagonal blocks always present): block `k` of
/// column `j` is row block `rows[k]`, values `vals[9k..9k + 9]` column-major, for `k` in
/// `col_ptr[j]..col_ptr[j + 1]`. Borrowed by the exact candidates (`solver/exact.rs`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct DelassusBlocks<'a> {
    pub col_ptr: &'a [usize],
    pub rows: &'a [usize],
    pub vals: &'a [f64],
}

/// Workspace of the Delassus form (grow-only).
#[derive(Debug, Clone, Default)]
pub(crate) struct DelassusWorkspace {
    col_ptr: Vec<usize>,
    rows: Vec<usize>,
    vals: Vec<f64>,
    /// Off-diagonal block pairs (row, column) of the pattern, for the sparse analysis.
    pairs: Vec<(usize, usize)>,
    dims: Vec<usize>,
    sparse: SparseSlot,
    /// The sparse LU is used for this problem (else the dense one).
    use_sparse: bool,
    /// The last condensed factorization is the dense one (dense problem, or sparse failure).
    dense_factored: bool,
    lu: PartialPivLu,
    tmp: Vec<f64>,
}

/// Fallible `Vec` growth to `len` elements.
fn reserve_to<T>(v: &mut Vec<T>, len: usize, what: &'static str) -> Result<(), IpmError> {
    v.clear();
    v.try_reserve(len).map_err(|_| IpmError::Allocation { what, len })
}

/// The Delassus form over the caller's `W` (3nc × 3nc, column-major view).
pub(crate) struct DelassusForm<'w> {
    ws: &'w mut DelassusWorkspace,
    n: usize,
}

impl<'w> DelassusForm<'w> {
    /// Reads `W`'s block pattern (a block is present unless its 9 entries are all 0) and values,
    /// and analyses the sparse pattern (reused when it equals a recent one).
    pub fn new(ws: &'w mut DelassusWorkspace, w: DMatrixView<'_, f64>) -> Result<Self, IpmError> {
        let n = w.nrows();
        let nc = n / 3;
        let present = |rb: usize, cb: usize| {
            rb == cb || (0..3).any(|c| (0..3).any(|r| w[(3 * rb + r, 3 * cb + c)] != 0.0))
        };
        let mut count = 0usize;
        for cb in 0..nc {
            count += (0..nc).filter(|&rb| present(rb, cb)).count();
        }
        let density = count as f64 / (nc * nc).max(1) as f64;
        ws.use_sparse = n >= BLOCK_SPARSE_MIN_DIM && density <= DENSE_FROM;
        reserve_to(&mut ws.col_ptr, nc + 1, "Delassus block columns")?;
        reserve_to(&mut ws.rows, count, "Delassus blocks")?;
        reserve_to(&mut ws.vals, 9 * count, "Delassus block values")?;
        // The pattern's pairs and block sizes only for the sparse analysis (a small problem's
        // fresh workspace skips the two allocations, issue 30 item 5).
        if ws.use_sparse {
            reserve_to(&mut ws.pairs, count - nc, "Delassus block pairs")?;
            reserve_to(&mut ws.dims, nc, "Delassus block sizes")?;
        }
        ws.col_ptr.push(0);
        for cb in 0..nc {
            for rb in (0..nc).filter(|&rb| present(rb, cb)) {
                ws.rows.push(rb);
                for c in 0..3 {
                    for r in 0..3 {
                        ws.vals.push(w[(3 * rb + r, 3 * cb + c)]);
                    }
                }
                if rb != cb && ws.use_sparse {
                    ws.pairs.push((rb, cb));
                }
            }
            ws.col_ptr.push(ws.rows.len());
        }
        if ws.use_sparse {
            ws.dims.resize(nc, 3);
            match ws.sparse.get().analyze(&ws.dims, &ws.pairs) {
                Ok(_) => {}
                Err(SparseError::OutOfMemory) => {
                    return Err(IpmError::Allocation { what: "the sparse Newton matrix", len: count });
                }
                // Not expected for a valid pattern: take the dense LU.
                Err(_) => ws.use_sparse = false,
            }
        }
        // The dense LU also serves as the sparse one's fallback.
        ws.lu.try_reserve(n).map_err(|_| IpmError::Allocation { what: "the Newton matrix", len: n * n })?;
        reserve_to(&mut ws.tmp, n, "Delassus scratch")?;
        ws.tmp.resize(n, 0.0);
        ws.dense_factored = !ws.use_sparse;
        Ok(Self { ws, n })
    }

    /// `W`'s blocks.
    pub fn blocks(&self) -> DelassusBlocks<'_> {
        DelassusBlocks { col_ptr: &self.ws.col_ptr, rows: &self.ws.rows, vals: &self.ws.vals }
    }

    /// `H = (1 + reg)·I + W·blkdiag(D)` into the dense LU's storage, factored. Written in the
    /// LU's padded layout (leading dimension `padded_dim(n)`), so that `factor` does not move
    /// the columns apart first (eight `memmove` calls a factorization of a 3-contact problem),
    /// and assembled inside the SIMD dispatch (this method is not inlined into the solve's):
    /// the same additions in the same order (issue 30 item 5).
    fn factor_dense(&mut self, reg: f64, d: &[f64]) {
        let (n, ws) = (self.n, &mut *self.ws);
        simd::dispatch_fn(
            #[inline(always)]
            || assemble_dense(ws, n, reg, d),
        );
        ws.lu.factor();
        ws.dense_factored = true;
    }

    /// The same into the sparse LU; false when a block is missing or the factorization fails.
    fn factor_sparse(&mut self, reg: f64, d: &[f64]) -> bool {
        let ws = &mut *self.ws;
        let lu = ws.sparse.get();
        lu.clear_values();
        for cb in 0..ws.col_ptr.len() - 1 {
            let dj = &d[9 * cb..9 * cb + 9];
            for k in ws.col_ptr[cb]..ws.col_ptr[cb + 1] {
                let mut p = block_times(&ws.vals[9 * k..9 * k + 9], dj);
                let rb = ws.rows[k];
                if rb == cb {
                    for a in 0..3 {
                        p[4 * a] += 1.0 + reg;
                    }
                }
                let Ok((blk, rs, cs)) = lu.block_slice_mut(rb, cb) else { return false };
                for c in 0..3 {
                    for r in 0..3 {
                        blk[r * rs + c * cs] += p[r + 3 * c];
                    }
                }
            }
        }
        lu.factor().is_ok()
    }
}

/// [`DelassusForm::factor_dense`]'s matrix `(1 + reg)·I + W·blkdiag(D)` (n×n) into `ws.lu`.
#[inline(always)]
fn assemble_dense(ws: &mut DelassusWorkspace, n: usize, reg: f64, d: &[f64]) {
    let ld = padded_dim(n);
    let h = ws.lu.padded_storage_mut(n);
    h.fill(0.0);
    for j in 0..n {
        h[j * ld + j] = 1.0 + reg;
    }
    for (cb, dj) in d.chunks_exact(9).enumerate().take(ws.col_ptr.len() - 1) {
        let (lo, hi) = (ws.col_ptr[cb], ws.col_ptr[cb + 1]);
        for (&rb, w) in ws.rows[lo..hi].iter().zip(ws.vals[9 * lo..9 * hi].chunks_exact(9)) {
            let p = block_times(w, dj);
            for (c, pc) in p.chunks_exact(3).enumerate() {
                let col = &mut h[(3 * cb + c) * ld + 3 * rb..(3 * cb + c) * ld + 3 * rb + 3];
                for (x, &y) in col.iter_mut().zip(pc) {
                    *x += y;
                }
            }
        }
    }
}

/// `A·B` of two column-major 3×3 blocks.
#[inline(always)]
fn block_times(a: &[f64], b: &[f64]) -> [f64; 9] {
    let mut p = [0.0; 9];
    for c in 0..3 {
        for r in 0..3 {
            p[r + 3 * c] = a[r] * b[3 * c] + a[r + 3] * b[1 + 3 * c] + a[r + 6] * b[2 + 3 * c];
        }
    }
    p
}

impl Form for DelassusForm<'_> {
    #[inline(always)]
    fn contact_velocity(&self, i: usize, dirs: usize, v: &[f64]) -> [f64; 3] {
        let mut u = [v[3 * i], v[3 * i + 1], v[3 * i + 2]];
        u[dirs..].fill(0.0);
        u
    }

    /// `out −= W_{:,i} b` (the momentum rows' impulse term).
    #[inline(always)]
    fn sub_contact_impulse(&self, i: usize, dirs: usize, b: &[f64; 3], out: &mut [f64]) {
        let ws = &*self.ws;
        let mut f = *b;
        f[dirs..].fill(0.0);
        for k in ws.col_ptr[i]..ws.col_ptr[i + 1] {
            // Fixed-size blocks: no bounds check per entry (issue 30 item 5), the same operations.
            let w: &[f64; 9] = ws.vals[9 * k..9 * k + 9].try_into().expect("9 entries");
            let rb = ws.rows[k];
            let o: &mut [f64; 3] = (&mut out[3 * rb..3 * rb + 3]).try_into().expect("3 entries");
            for r in 0..3 {
                o[r] -= w[r] * f[0] + w[r + 3] * f[1] + w[r + 6] * f[2];
            }
        }
    }

    #[inline(always)]
    fn add_mass_product(&self, x: &[f64], out: &mut [f64]) {
        for (o, &a) in out.iter_mut().zip(x) {
            *o += a;
        }
    }

    fn mass_diagonal_max(&self) -> f64 {
        1.0
    }

    fn start(&mut self, _v0: &[f64], _h_tau: &[f64], _v: &mut [f64]) -> bool {
        true
    }

    /// M = I: `b` is the free velocity already; the normal Delassus diagonals are `W`'s.
    fn solve_mass_in_place(&mut self, _b: &mut [f64], delassus: Option<&mut [f64]>) {
        if let Some(out) = delassus {
            let ws = &*self.ws;
            for (j, o) in out.iter_mut().enumerate().take(ws.col_ptr.len() - 1) {
                let k = (ws.col_ptr[j]..ws.col_ptr[j + 1]).find(|&k| ws.rows[k] == j);
                *o = k.map_or(0.0, |k| ws.vals[9 * k]);
            }
        }
    }

    fn factor_condensed(&mut self, reg: f64, _models: &[ContactModel], d: &[f64]) {
        if self.ws.use_sparse && self.factor_sparse(reg, d) {
            self.ws.dense_factored = false;
        } else {
            self.factor_dense(reg, d);
        }
    }

    fn solve_condensed(&mut self, b: &mut [f64]) {
        let ws = &mut *self.ws;
        if ws.dense_factored {
            ws.lu.solve_in_place(b, &mut ws.tmp[..self.n]);
        } else if ws.sparse.get().solve_in_place(b).is_err() {
            b.fill(f64::NAN);
        }
    }

    fn solve_direct(&mut self, _b: &mut [f64], _x: &mut [f64]) {}

    fn dense_parts(&self) -> Option<(DMatrixView<'_, f64>, &[f64])> {
        None
    }

    fn delassus_blocks(&self) -> Option<DelassusBlocks<'_>> {
        Some(self.blocks())
    }
}
