//! Each contact's Jacobian rows, blocked by columns.
//!
//! Contact i owns three rows: `Jt[2i]`, `Jt[2i+1]` and `Jn[i]`. In articulated systems most of
//! their columns are exactly zero (only the joints between the root and the contact's body move
//! it). Once per solve the three rows of every contact are copied, in blocks of [`BLOCK`]
//! consecutive columns, into a contact-major store (12 values per block: the three rows over the
//! block's columns), and each contact keeps the list of its *nonzero blocks*: the blocks where
//! any of its three rows has an entry that is not exactly 0 (a NaN counts, so it propagates).
//! The per-iteration kernels that run over a contact's columns (`Jtᵀ ft`, `Jnᵀ fn`, the rank-3
//! Newton-matrix update) then cost O(its nonzero blocks) and work on whole SIMD vectors.
//!
//! A nonzero block may hold some zero columns of the contact. They add exact zeros, which change
//! nothing (a sum that starts at +0 never becomes −0), so the results are those of a loop over
//! the contact's nonzero columns alone.

use nalgebra::DMatrixView;

use super::TamsiError;
use crate::linalg::simd::Simd;

/// Columns per block.
pub(crate) const BLOCK: usize = 4;
/// Values of one contact over one block: rows t0, t1, n, [`BLOCK`] values each.
pub(crate) const BLOCK_LEN: usize = 3 * BLOCK;

/// The blocked rows of all contacts of one problem (grow-only storage).
#[derive(Debug, Clone, Default)]
pub(crate) struct ContactBlocks {
    nv: usize,
    nc: usize,
    /// Contact i over block b: `rows[(b·nc + i)·BLOCK_LEN..][..BLOCK_LEN]`, rows t0, t1, n. Lanes
    /// past column nv are 0.
    rows: Vec<f64>,
    /// Contact i's nonzero blocks are `blocks[block_start[i]..block_start[i + 1]]`, increasing.
    block_start: Vec<u32>,
    blocks: Vec<u32>,
    /// Scratch of `prepare`: whether contact i has a nonzero entry in block b, at `b·nc + i`.
    nonzero: Vec<bool>,
    /// Counts the preparations that changed the rows or the pattern (0: never prepared), so that
    /// storage derived from them ([`NewtonMatrix`](super::newton_matrix::NewtonMatrix)) knows
    /// when it is stale.
    generation: u64,
    /// The generation of the last completed preparation (never reused).
    last_generation: u64,
}

impl ContactBlocks {
    /// Copies `Jt` (2nc×nv) and `Jn` (nc×nv) in blocks and finds each contact's nonzero blocks.
    /// Allocates only when the problem is larger than any seen before; an allocation that fails,
    /// or a problem whose block count does not fit the 32-bit indices, is an error and leaves
    /// the storage unprepared.
    ///
    /// When the rows are bit for bit those of the last preparation (a solver re-solving the same
    /// problem, as a time step that repeats or the C API's borrowed data), the pattern is kept
    /// and [`generation`](Self::generation) does not change.
    pub fn prepare(
        &mut self,
        jt: &DMatrixView<'_, f64>,
        jn: &DMatrixView<'_, f64>,
    ) -> Result<(), TamsiError> {
        let nc = jn.nrows();
        let nv = jn.ncols();
        let nb = nv.div_ceil(BLOCK);
        let cells = nb.checked_mul(nc).filter(|&c| c < u32::MAX as usize).ok_or(TamsiError::TooLarge {
            what: "contact column blocks nc·ceil(nv/4)",
            limit: u32::MAX as usize - 1,
        })?;
        let len = cells * BLOCK_LEN;
        try_grow(&mut self.rows, len, 0.0, "TAMSI contact Jacobian blocks")?;
        try_grow(&mut self.nonzero, cells, false, "TAMSI contact block pattern")?;
        try_grow(&mut self.block_start, nc + 1, 0, "TAMSI contact block pattern")?;
        // Same shape as a completed preparation: the pattern stands unless a value changes.
        let mut changed = self.generation == 0 || (self.nv, self.nc) != (nv, nc);
        // Unprepared until the pattern is complete (an error below leaves it so).
        self.generation = 0;
        self.nv = nv;
        self.nc = nc;
        if !nv.is_multiple_of(BLOCK) {
            // Lanes past the last column.
            let b = nb - 1;
            for blk in self.rows[b * nc * BLOCK_LEN..len].chunks_exact_mut(BLOCK) {
                blk[nv % BLOCK..].fill(0.0);
            }
        }
        // Bit comparison: a −0 that became +0 changes products, and a NaN equals itself.
        let differs = |a: f64, b: f64| a.to_bits() != b.to_bits();
        for c in 0..nv {
            let (b, w) = (c / BLOCK, c % BLOCK);
            let range = b * nc * BLOCK_LEN..(b + 1) * nc * BLOCK_LEN;
            let (t, n) = (jt.column(c), jn.column(c));
            let (t, n) = (t.as_slice(), n.as_slice());
            let rows = self.rows[range].chunks_exact_mut(BLOCK_LEN);
            for ((r, t), &n) in rows.zip(t.chunks_exact(2)).zip(n) {
                changed |= differs(r[w], t[0]) | differs(r[BLOCK + w], t[1]) | differs(r[2 * BLOCK + w], n);
                r[w] = t[0];
                r[BLOCK + w] = t[1];
                r[2 * BLOCK + w] = n;
            }
        }
        if !changed {
            self.generation = self.last_generation;
            return Ok(());
        }
        let nonzero = &mut self.nonzero[..nb * nc];
        for (f, r) in nonzero.iter_mut().zip(self.rows[..len].chunks_exact(BLOCK_LEN)) {
            // Not `any`: no early exit, so the 12 comparisons vectorize.
            *f = r.iter().fold(false, |f, &x| f | (x != 0.0));
        }
        let total = nonzero.iter().filter(|&&f| f).count();
        try_grow(&mut self.blocks, total, 0, "TAMSI contact block pattern")?;
        let mut k = 0;
        self.block_start[0] = 0;
        for i in 0..nc {
            for b in 0..nb {
                if nonzero[b * nc + i] {
                    self.blocks[k] = b as u32;
                    k += 1;
                }
            }
            self.block_start[i + 1] = k as u32;
        }
        self.last_generation += 1;
        self.generation = self.last_generation;
        Ok(())
    }

    /// Identifies the current rows and pattern: changes whenever a preparation changes them, 0
    /// when unprepared.
    #[inline(always)]
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Number of column blocks.
    pub fn num_blocks(&self) -> usize {
        self.nv.div_ceil(BLOCK)
    }

    /// Contact i's nonzero blocks, increasing.
    #[inline(always)]
    pub fn blocks_of(&self, i: usize) -> &[u32] {
        &self.blocks[self.block_start[i] as usize..self.block_start[i + 1] as usize]
    }

    /// Position of contact i's first nonzero block in the list of all contacts' nonzero blocks
    /// (contact by contact, blocks increasing); `nonzero_index(nc)` is the length of that list.
    #[inline(always)]
    pub fn nonzero_index(&self, i: usize) -> usize {
        self.block_start[i] as usize
    }

    /// Contact i's rows over block b.
    #[inline(always)]
    pub fn rows(&self, b: usize, i: usize) -> &[f64; BLOCK_LEN] {
        let k = (b * self.nc + i) * BLOCK_LEN;
        self.rows[k..k + BLOCK_LEN].try_into().unwrap()
    }

    /// `tau_t += ct0·Jt[2i] + ct1·Jt[2i+1]` and `tau_n += cn·Jn[i]` for every contact i in order,
    /// with `(ct0, ct1, cn) = coefficients(i)`. Both have at least `num_blocks()·BLOCK` entries.
    #[inline(always)]
    pub fn add_transposed<S: Simd>(
        &self,
        simd: S,
        tau_t: &mut [f64],
        tau_n: &mut [f64],
        coefficients: impl Fn(usize) -> (f64, f64, f64),
    ) {
        let lanes = S::F64_LANES;
        for i in 0..self.nc {
            let (ct0, ct1, cn) = coefficients(i);
            let (ct0, ct1, cn) = (simd.splat_f64s(ct0), simd.splat_f64s(ct1), simd.splat_f64s(cn));
            for &b in self.blocks_of(i) {
                let b = b as usize;
                let r = self.rows(b, i);
                let ot = S::as_mut_simd_f64s(&mut tau_t[b * BLOCK..(b + 1) * BLOCK]).0;
                let on = S::as_mut_simd_f64s(&mut tau_n[b * BLOCK..(b + 1) * BLOCK]).0;
                for (v, (ot, on)) in ot.iter_mut().zip(on).enumerate() {
                    let k = v * lanes;
                    let t0 = S::as_simd_f64s(&r[k..k + lanes]).0[0];
                    let t1 = S::as_simd_f64s(&r[BLOCK + k..BLOCK + k + lanes]).0[0];
                    let n = S::as_simd_f64s(&r[2 * BLOCK + k..2 * BLOCK + k + lanes]).0[0];
                    *ot = simd.add_f64s(*ot, simd.add_f64s(simd.mul_f64s(ct0, t0), simd.mul_f64s(ct1, t1)));
                    *on = simd.add_f64s(*on, simd.mul_f64s(cn, n));
                }
            }
        }
    }
}

/// Grows `v` to `len` elements (new ones `fill`); an allocation failure is an error, not an
/// abort.
pub(crate) fn try_grow<T: Clone>(
    v: &mut Vec<T>,
    len: usize,
    fill: T,
    what: &'static str,
) -> Result<(), TamsiError> {
    crate::linalg::try_grow(v, len, fill).map_err(|_| TamsiError::AllocationFailed {
        what,
        elements: len,
        element_size: std::mem::size_of::<T>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::DMatrix;
    use pulp::Scalar;

    #[test]
    fn blocks_reproduce_dense_products() {
        // Two contacts over nv = 7; contact 0 touches columns {0, 1, 4}, contact 1 {2, 3, 4, 6}.
        let nv = 7;
        let mut jt = DMatrix::<f64>::zeros(4, nv);
        let mut jn = DMatrix::<f64>::zeros(2, nv);
        jt[(0, 0)] = 1.0;
        jt[(1, 1)] = 2.0;
        jn[(0, 4)] = 3.0;
        jt[(2, 2)] = -1.0;
        jt[(3, 3)] = 0.5;
        jn[(1, 4)] = 4.0;
        jn[(1, 6)] = f64::NAN;
        let mut blocks = ContactBlocks::default();
        blocks.prepare(&jt.as_view(), &jn.as_view()).unwrap();
        assert_eq!(blocks.blocks_of(0), &[0, 1]);
        assert_eq!(blocks.blocks_of(1), &[0, 1]);
        assert_eq!(blocks.rows(1, 0), &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0]);
        assert_eq!(blocks.rows(0, 1)[..4], [0.0, 0.0, -1.0, 0.0]);

        // The same rows again keep the pattern and its generation; a changed value (here a
        // +0 that becomes −0, which no == comparison sees) starts a new one.
        let generation = blocks.generation();
        assert_ne!(generation, 0);
        blocks.prepare(&jt.as_view(), &jn.as_view()).unwrap();
        assert_eq!(blocks.generation(), generation);
        jt[(0, 3)] = -0.0;
        blocks.prepare(&jt.as_view(), &jn.as_view()).unwrap();
        assert_ne!(blocks.generation(), generation);
        assert_eq!(blocks.blocks_of(0), &[0, 1]);

        jn[(1, 6)] = 5.0;
        jn[(0, 4)] = 0.0;
        blocks.prepare(&jt.as_view(), &jn.as_view()).unwrap();
        assert_eq!(blocks.blocks_of(0), &[0]);
        let (ct, cn) = ([1.5, -2.0, 0.25, 3.0], [0.5, -1.0]);
        let (mut tau_t, mut tau_n) = (vec![0.0; 8], vec![0.0; 8]);
        blocks.add_transposed(Scalar::new(), &mut tau_t, &mut tau_n, |i| (ct[2 * i], ct[2 * i + 1], cn[i]));
        for (friction, out) in [(true, &tau_t), (false, &tau_n)] {
            let mut want = vec![0.0; nv];
            for i in 0..2 {
                for c in 0..nv {
                    want[c] += if friction {
                        ct[2 * i] * jt[(2 * i, c)] + ct[2 * i + 1] * jt[(2 * i + 1, c)]
                    } else {
                        cn[i] * jn[(i, c)]
                    };
                }
            }
            assert_eq!(&out[..nv], &want[..]);
        }
    }
}
