//! Assembly of the Newton matrix `J = M + dt·Σᵢ Aᵢ Cᵢ Aᵢᵀ` (`docs/tamsi.md` §4, expanded form).
//!
//! `Aᵢ = [Jtᵢ₀ᵀ Jtᵢ₁ᵀ Jnᵢᵀ]` holds contact i's three Jacobian rows and `Cᵢ = [[D, μ_reg·t̂·g],
//! [0, −g]]` its 3×3 coefficients, so each contact adds the rank-3 update `dt·Aᵢ Bᵢᵀ`, with
//! `Bᵢ = Aᵢ Cᵢᵀ`, on the block of the columns it touches.
//!
//! The matrix is swept once, tile by tile ([`TILE_ROWS`]×[`BLOCK`] entries held in registers): a
//! tile starts from M and receives, in contact order, the update of every contact whose nonzero
//! column blocks cover it, then is stored. The contacts of each tile are listed once per solve.
//! Every entry receives exactly the contributions it would get from one contact at a time,
//! `d += (a₀x₀ + a₁x₁) + a₂x₂` in contact order, so the result does not depend on the tiling;
//! the zero columns of a contact's nonzero blocks add exact zeros.

use super::TamsiError;
use super::contact_blocks::{BLOCK, BLOCK_LEN, ContactBlocks, try_grow};
use crate::linalg::simd::Simd;
use crate::linalg::{LineAligned, PaddedMatrix};

/// Column blocks per row block of a tile.
const ROW_BLOCKS: usize = 2;
/// Rows of a tile.
pub(crate) const TILE_ROWS: usize = ROW_BLOCKS * BLOCK;
/// Values of `Bᵢ` over one row block: three rows of [`TILE_ROWS`].
const B_LEN: usize = 3 * TILE_ROWS;
/// The 3×3 coefficients `Cᵢ` of one contact: the symmetric friction block `D` and the two-way
/// coupling column `(μ_reg·t̂₀·g, μ_reg·t̂₁·g, −g)`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct UpdateCoefficients {
    pub d: [f64; 3],
    pub coupling: [f64; 3],
}

impl UpdateCoefficients {
    /// Whether the contact adds nothing (e.g. it separated): every coefficient is ±0 (a NaN is
    /// not, so it propagates). Without short-circuit branches, which mispredict.
    #[inline(always)]
    fn is_zero(&self) -> bool {
        let [d0, d1, d2] = self.d;
        let [c0, c1, c2] = self.coupling;
        (d0 == 0.0) & (d1 == 0.0) & (d2 == 0.0) & (c0 == 0.0) & (c1 == 0.0) & (c2 == 0.0)
    }
}

/// Workspace of the assembly for one problem's sparsity (grow-only storage).
#[derive(Debug, Clone, Default)]
pub(crate) struct NewtonMatrix {
    nv: usize,
    nc: usize,
    /// `Bᵢ` over row block r at `b[(r·nc + i)·B_LEN..]`: rows 0, 1, 2 of [`TILE_ROWS`] values.
    /// Zero for a contact that adds nothing in the current iteration. Cache-line aligned: the
    /// tiles load each row of `Bᵢ` as whole vectors ([`LineAligned`] says why).
    b: LineAligned,
    /// Contacts of tile t (row block major): `tile_contacts[tile_start[t]..tile_start[t + 1]]`,
    /// each with the index of the tile's column block among the contact's nonzero blocks.
    tile_start: Vec<u32>,
    tile_contacts: Vec<(u32, u32)>,
    /// `dt·Aᵢ` over each nonzero block of each contact, `BLOCK_LEN` values each (rows t0, t1, n),
    /// in the order of [`ContactBlocks::nonzero_index`].
    a_dt: Vec<f64>,
    /// What the lists and `a_dt` were built from: the blocks' generation (0: nothing) and the
    /// bits of dt.
    prepared_for: (u64, u64),
}

/// The row blocks of a contact whose nonzero column blocks are `blocks`, increasing.
fn row_blocks(blocks: &[u32]) -> impl Iterator<Item = usize> + '_ {
    let mut last = usize::MAX;
    blocks.iter().filter_map(move |&b| {
        let r = b as usize / ROW_BLOCKS;
        (r != last).then(|| {
            last = r;
            r
        })
    })
}

impl NewtonMatrix {
    /// Lists the contacts of every tile, with their `dt·Aᵢ`, for the problem whose Jacobians
    /// `blocks` holds. Allocates only when the problem is larger than any prepared before; an
    /// allocation that fails, or more (tile, contact) pairs than the 32-bit indices hold, is an
    /// error.
    pub fn prepare(
        &mut self,
        blocks: &ContactBlocks,
        nv: usize,
        nc: usize,
        dt: f64,
    ) -> Result<(), TamsiError> {
        // The same blocks (same generation, hence the same nv, nc and rows) and dt: the lists
        // and `a_dt` stand (a solver re-solving one problem prepares once).
        let key = (blocks.generation(), dt.to_bits());
        if key.0 != 0 && key == self.prepared_for && (self.nv, self.nc) == (nv, nc) {
            return Ok(());
        }
        self.prepared_for = (0, 0);
        let (nrb, ncb) = (nv.div_ceil(TILE_ROWS), nv.div_ceil(BLOCK));
        let too_large = |what| TamsiError::TooLarge { what, limit: u32::MAX as usize - 1 };
        let b_len = nrb.checked_mul(nc).and_then(|x| x.checked_mul(B_LEN));
        let b_len = b_len.ok_or(too_large("contact row blocks nc·ceil(nv/8)"))?;
        self.b.try_grow(b_len).map_err(|elements| TamsiError::AllocationFailed {
            what: "TAMSI Newton-matrix contact rows",
            elements,
            element_size: size_of::<f64>(),
        })?;
        let tiles = nrb * ncb;
        try_grow(&mut self.tile_start, tiles + 1, 0, "TAMSI Newton-matrix tiles")?;
        self.nv = nv;
        self.nc = nc;
        let start = &mut self.tile_start[..tiles + 1];
        start.fill(0);
        for i in 0..nc {
            let cols = blocks.blocks_of(i);
            for r in row_blocks(cols) {
                for &c in cols {
                    start[r * ncb + c as usize + 1] += 1;
                }
            }
        }
        // Each tile counts at most nc < u32::MAX contacts (`ContactBlocks::prepare`); the running
        // total of (tile, contact) pairs must not wrap either.
        for t in 0..tiles {
            start[t + 1] = start[t + 1]
                .checked_add(start[t])
                .ok_or(too_large("(tile, contact) pairs of the Newton matrix"))?;
        }
        try_grow(&mut self.tile_contacts, start[tiles] as usize, (0, 0), "TAMSI Newton-matrix tiles")?;
        // `start[t]` serves as tile t's fill cursor, then is restored.
        for i in 0..nc {
            let cols = blocks.blocks_of(i);
            let first = blocks.nonzero_index(i);
            for r in row_blocks(cols) {
                for (k, &c) in cols.iter().enumerate() {
                    let t = r * ncb + c as usize;
                    self.tile_contacts[start[t] as usize] = (i as u32, (first + k) as u32);
                    start[t] += 1;
                }
            }
        }
        for t in (1..=tiles).rev() {
            start[t] = start[t - 1];
        }
        start[0] = 0;
        let nonzero = blocks.nonzero_index(nc);
        try_grow(&mut self.a_dt, nonzero * BLOCK_LEN, 0.0, "TAMSI Newton-matrix contact blocks")?;
        let mut out = self.a_dt.chunks_exact_mut(BLOCK_LEN);
        for i in 0..nc {
            for (&c, a) in blocks.blocks_of(i).iter().zip(&mut out) {
                for (a, &x) in a.iter_mut().zip(blocks.rows(c as usize, i)) {
                    *a = dt * x;
                }
            }
        }
        self.prepared_for = key;
        Ok(())
    }

    /// Writes `J` into `j` (column-major nv×nv, leading dimension `ld ≥ nv`; when `ld` is a
    /// multiple of the vector width, rows nv..ld are overwritten with unspecified values, else
    /// left as they are) for the problem last prepared. `coefficients(i)` gives contact i's `Cᵢ`; `coupled` says whether the coupling
    /// column can be nonzero (two-way scheme).
    ///
    /// `fused = false` adds each contact's terms in Eigen's order, `d += (a₀x₀ + a₁x₁) + a₂x₂`,
    /// with separately rounded products (bit-identical to Drake's dense products). `fused = true`
    /// adds them as three fused multiply-adds, `d = fma(a₂, x₂, fma(a₁, x₁, fma(a₀, x₀, d)))`:
    /// half the floating-point operations, results differing from the unfused ones in round-off
    /// only. Either way the result does not depend on the tiling or on the CPU.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub fn assemble<S: Simd>(
        &mut self,
        simd: S,
        j: &mut [f64],
        ld: usize,
        m: &PaddedMatrix,
        blocks: &ContactBlocks,
        coupled: bool,
        fused: bool,
        coefficients: impl Fn(usize) -> UpdateCoefficients,
    ) {
        let (nc, nb) = (self.nc, blocks.num_blocks());
        let (b, _) = self.b.as_chunks_mut::<B_LEN>();
        for i in 0..nc {
            let c = coefficients(i);
            // A contact that adds nothing (separated) gets B = 0: its terms are exact zeros.
            let c = if c.is_zero() { UpdateCoefficients::default() } else { c };
            for r in row_blocks(blocks.blocks_of(i)) {
                fill_b(simd, blocks, nb, r, i, &c, &mut b[r * nc + i], coupled);
            }
        }
        match (coupled, fused) {
            (true, true) => self.sweep::<S, true, true>(simd, j, ld, m),
            (true, false) => self.sweep::<S, true, false>(simd, j, ld, m),
            (false, true) => self.sweep::<S, false, true>(simd, j, ld, m),
            (false, false) => self.sweep::<S, false, false>(simd, j, ld, m),
        }
    }

    #[inline(always)]
    fn sweep<S: Simd, const COUPLED: bool, const FUSED: bool>(
        &self,
        simd: S,
        j: &mut [f64],
        ld: usize,
        m: &PaddedMatrix,
    ) {
        let (nv, nc) = (self.nv, self.nc);
        let ncb = nv.div_ceil(BLOCK);
        let j = &mut j[..ld * nv];
        // Each contact's `dt·Aᵢ` over a block and `Bᵢ` over a row block as fixed-size chunks:
        // one bounds check per (tile, contact) pair for each.
        let (a, _) = self.a_dt.as_chunks::<BLOCK_LEN>();
        let (b, _) = self.b.as_chunks::<B_LEN>();
        for (r, p0) in (0..nv).step_by(TILE_ROWS).enumerate() {
            let b_row = &b[r * nc..(r + 1) * nc];
            for c in 0..ncb {
                let t = r * ncb + c;
                let pairs = self.tile_start[t] as usize..self.tile_start[t + 1] as usize;
                let list = &self.tile_contacts[pairs];
                // The last row block, when it holds one block of rows (nv mod 8 in 1..=4),
                // computes that block only, not the padding rows of a second.
                if nv - p0 <= BLOCK {
                    tile_of_width::<S, BLOCK, COUPLED, FUSED>(simd, j, ld, m, nv, c, p0, list, a, b_row);
                } else {
                    tile_of_width::<S, TILE_ROWS, COUPLED, FUSED>(simd, j, ld, m, nv, c, p0, list, a, b_row);
                }
            }
        }
    }
}

/// [`tile`] at the width of column block `c`: its first 1, 2, 3 or all [`BLOCK`] columns (the
/// last block may be partial), each width compiled apart.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn tile_of_width<S: Simd, const ROWS: usize, const COUPLED: bool, const FUSED: bool>(
    simd: S,
    j: &mut [f64],
    ld: usize,
    m: &PaddedMatrix,
    nv: usize,
    c: usize,
    p0: usize,
    list: &[(u32, u32)],
    a_dt: &[[f64; BLOCK_LEN]],
    b_row: &[[f64; B_LEN]],
) {
    match nv - c * BLOCK {
        1 => tile::<S, 1, ROWS, COUPLED, FUSED>(simd, j, ld, m, nv, c, p0, list, a_dt, b_row),
        2 => tile::<S, 2, ROWS, COUPLED, FUSED>(simd, j, ld, m, nv, c, p0, list, a_dt, b_row),
        3 => tile::<S, 3, ROWS, COUPLED, FUSED>(simd, j, ld, m, nv, c, p0, list, a_dt, b_row),
        _ => tile::<S, BLOCK, ROWS, COUPLED, FUSED>(simd, j, ld, m, nv, c, p0, list, a_dt, b_row),
    }
}

/// Tile (column block `c`, rows `p0..p0 + ROWS` clipped to nv; `ROWS` is [`TILE_ROWS`], or
/// [`BLOCK`] for the last row block when that is all it holds): the first `W` columns of the
/// block. `list` are its contacts, each with the index of its `dt·Aᵢ` over the block in `a_dt`;
/// `b_row` holds every contact's `Bᵢ` over the tile's row block.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn tile<S: Simd, const W: usize, const ROWS: usize, const COUPLED: bool, const FUSED: bool>(
    simd: S,
    j: &mut [f64],
    ld: usize,
    m: &PaddedMatrix,
    nv: usize,
    c: usize,
    p0: usize,
    list: &[(u32, u32)],
    a_dt: &[[f64; BLOCK_LEN]],
    b_row: &[[f64; B_LEN]],
) {
    let lanes = S::F64_LANES;
    let nvec = ROWS / lanes;
    let rows = (nv - p0).min(ROWS);
    let q0 = c * BLOCK;
    let zero = simd.splat_f64s(0.0);
    let mut acc = [[zero; TILE_ROWS]; W];
    for (w, acc) in acc.iter_mut().enumerate() {
        let col = m.column(q0 + w);
        load_rows(simd, &col[p0..(p0 + ROWS).min(col.len())], &mut acc[..nvec]);
    }
    for &(i, k) in list {
        let (a, b) = (&a_dt[k as usize], &b_row[i as usize]);
        let x0 = S::as_simd_f64s(&b[..TILE_ROWS]).0;
        let x1 = S::as_simd_f64s(&b[TILE_ROWS..2 * TILE_ROWS]).0;
        let x2 = S::as_simd_f64s(&b[2 * TILE_ROWS..]).0;
        for (w, acc) in acc.iter_mut().enumerate() {
            let (c0, c1) = (simd.splat_f64s(a[w]), simd.splat_f64s(a[BLOCK + w]));
            // Third row's coefficient (zero and unused without coupling).
            let c2 = simd.splat_f64s(if COUPLED { a[2 * BLOCK + w] } else { 0.0 });
            if FUSED {
                // `mul_add_f64s` is a correctly rounded fma in every instruction set pulp
                // dispatches to (software fma in the scalar fallback), so this path too gives
                // the same bits on every CPU.
                for v in 0..nvec {
                    let mut t = simd.mul_add_f64s(c0, x0[v], acc[v]);
                    t = simd.mul_add_f64s(c1, x1[v], t);
                    if COUPLED {
                        t = simd.mul_add_f64s(c2, x2[v], t);
                    }
                    acc[v] = t;
                }
            } else if COUPLED {
                for v in 0..nvec {
                    let t = simd.add_f64s(simd.mul_f64s(c0, x0[v]), simd.mul_f64s(c1, x1[v]));
                    let t = simd.add_f64s(t, simd.mul_f64s(c2, x2[v]));
                    acc[v] = simd.add_f64s(acc[v], t);
                }
            } else {
                for v in 0..nvec {
                    let t = simd.add_f64s(simd.mul_f64s(c0, x0[v]), simd.mul_f64s(c1, x1[v]));
                    acc[v] = simd.add_f64s(acc[v], t);
                }
            }
        }
    }
    // A leading dimension of whole vectors (the LU's padded storage) takes whole vectors:
    // no masked store, the rows past nv get the padding's values (see `assemble`).
    let rows = if ld.is_multiple_of(lanes) { rows.next_multiple_of(lanes) } else { rows };
    for (w, acc) in acc.iter().enumerate() {
        let col = &mut j[(q0 + w) * ld + p0..(q0 + w) * ld + p0 + rows];
        store_rows(simd, col, &acc[..nvec]);
    }
}

/// Loads `src` (at most `TILE_ROWS` values) into consecutive vectors; lanes past its end are 0.
#[inline(always)]
fn load_rows<S: Simd>(simd: S, src: &[f64], out: &mut [S::f64s]) {
    let lanes = S::F64_LANES;
    for (v, o) in out.iter_mut().enumerate() {
        let lo = v * lanes;
        if lo + lanes <= src.len() {
            *o = S::as_simd_f64s(&src[lo..lo + lanes]).0[0];
        } else if lo < src.len() {
            *o = simd.partial_load_f64s(&src[lo..]);
        }
    }
}

/// Stores the first `dst.len()` lanes of `vals` (consecutive vectors) into `dst`.
#[inline(always)]
fn store_rows<S: Simd>(simd: S, dst: &mut [f64], vals: &[S::f64s]) {
    let lanes = S::F64_LANES;
    let len = dst.len();
    for (v, &x) in vals.iter().enumerate() {
        let lo = v * lanes;
        if lo + lanes <= len {
            S::as_mut_simd_f64s(&mut dst[lo..lo + lanes]).0[0] = x;
        } else if lo < len {
            simd.partial_store_f64s(&mut dst[lo..], x);
        }
    }
}

/// `Bᵢ = Aᵢ Cᵢᵀ` of contact i over row block `r` (column blocks `ROW_BLOCKS·r..` of the `nb`),
/// into `out`.
/// Without coupling the third row is not needed.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn fill_b<S: Simd>(
    simd: S,
    blocks: &ContactBlocks,
    nb: usize,
    r: usize,
    i: usize,
    c: &UpdateCoefficients,
    out: &mut [f64; B_LEN],
    coupled: bool,
) {
    let lanes = S::F64_LANES;
    let [d00, d01, d11] = c.d.map(|x| simd.splat_f64s(x));
    let [c02, c12, c22] = c.coupling.map(|x| simd.splat_f64s(x));
    let (b0, rest) = out.split_at_mut(TILE_ROWS);
    let (b1, b2) = rest.split_at_mut(TILE_ROWS);
    let (b0, b1, b2) = (S::as_mut_simd_f64s(b0).0, S::as_mut_simd_f64s(b1).0, S::as_mut_simd_f64s(b2).0);
    for h in 0..ROW_BLOCKS {
        let cb = r * ROW_BLOCKS + h;
        if cb >= nb {
            // Past the last column: rows that are never stored.
            for v in h * BLOCK / lanes..(h + 1) * BLOCK / lanes {
                let z = simd.splat_f64s(0.0);
                (b0[v], b1[v], b2[v]) = (z, z, z);
            }
            continue;
        }
        let a = blocks.rows(cb, i);
        for k in 0..BLOCK / lanes {
            let v = h * BLOCK / lanes + k;
            let t0 = S::as_simd_f64s(&a[k * lanes..(k + 1) * lanes]).0[0];
            let t1 = S::as_simd_f64s(&a[BLOCK + k * lanes..BLOCK + (k + 1) * lanes]).0[0];
            b0[v] = simd.add_f64s(simd.mul_f64s(t0, d00), simd.mul_f64s(t1, d01));
            b1[v] = simd.add_f64s(simd.mul_f64s(t0, d01), simd.mul_f64s(t1, d11));
            if coupled {
                let n = S::as_simd_f64s(&a[2 * BLOCK + k * lanes..2 * BLOCK + (k + 1) * lanes]).0[0];
                let t = simd.add_f64s(simd.mul_f64s(t0, c02), simd.mul_f64s(t1, c12));
                b2[v] = simd.add_f64s(t, simd.mul_f64s(n, c22));
            }
        }
    }
}
