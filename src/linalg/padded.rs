//! Column-major copies of small dense matrices with each column padded to whole vectors.
//!
//! A caller's matrix may have any number of rows and any column stride, so a kernel over its
//! columns needs a scalar tail for the last `rows mod 4` entries and, per call, the slicing of
//! every column. For the small matrices that are multiplied many times per solve (TAMSI's M, Jt
//! and Jn, once per Newton iteration or more) that overhead outweighs the arithmetic; a copy made
//! once per solve with columns of `ld` rows (`ld` a multiple of 4, the padding rows 0) lets every
//! product run on whole vectors.

use nalgebra::DMatrixView;

use super::simd::Simd;

/// Rows per padding unit: a multiple of the vector width of every instruction set dispatched to.
const PAD: usize = 4;

/// Bytes of a cache line on the machines the kernels are tuned for (x86-64).
const LINE_BYTES: usize = 64;
/// `f64`s per cache line.
const LINE: usize = LINE_BYTES / size_of::<f64>();

/// Grow-only `f64` storage whose slice starts at a cache-line boundary (64 bytes).
///
/// Why: the dense kernels (the LU below `BLOCKED_MIN_DIM`, the Newton-matrix tiles, the padded
/// products) load and store whole 32-byte vectors at multiples of 4 entries from the start of
/// their storage. A `Vec<f64>` starts wherever the allocator puts it (glibc: 16 bytes
/// aligned), so in half of the processes every other vector access straddles two cache lines,
/// depending on what was allocated before. Measured (`docs/performance.md` §1, ninth pass): the
/// same build solved the nv = 60 bench problem in 113–115 µs with its storage 32-byte aligned and
/// in 128–131 µs with it 16 bytes off, and which one a process got depended on unrelated
/// allocations (the Drake harness's nv = 60 lost 8 % that way after `7109fcf`). Alignment
/// changes no operation, so no bit.
///
/// Dereferences to the storage from its aligned start: at least the longest length grown to
/// (callers slice the part they use, as they would a `Vec`). Growing may move the storage and
/// leaves its contents unspecified (zeros today); a clone has its own aligned storage.
#[derive(Debug, Default)]
pub(crate) struct LineAligned {
    /// `data[start]` at a multiple of [`LINE_BYTES`], `start < LINE` (0 when empty).
    data: Vec<f64>,
    start: usize,
}

impl LineAligned {
    /// Makes the storage at least `len` entries long (allocating only when it has never been
    /// that long), fallibly: on `Err` (the entries that could not be allocated) nothing changed.
    /// The contents are unspecified after a call that grew it.
    #[inline(always)]
    pub fn try_grow(&mut self, len: usize) -> Result<(), usize> {
        // Called every iteration by the LU's storage accessors: the check inline, the growth not.
        if len <= self.data.len() - self.start { Ok(()) } else { self.reallocate(len) }
    }

    #[cold]
    #[inline(never)]
    fn reallocate(&mut self, len: usize) -> Result<(), usize> {
        // One line more than asked for, so that an aligned start always fits.
        let total = len.checked_add(LINE - 1).ok_or(usize::MAX)?;
        let mut data = Vec::new();
        data.try_reserve_exact(total).map_err(|_| len)?;
        data.resize(total, 0.0);
        // `align_offset` may answer "impossible" (usize::MAX) in principle: then unaligned.
        let start = data.as_ptr().align_offset(LINE_BYTES);
        self.start = if start < LINE { start } else { 0 };
        self.data = data;
        Ok(())
    }

    /// [`try_grow`](Self::try_grow) that aborts on allocation failure, like `Vec::resize`.
    #[inline(always)]
    pub fn grow(&mut self, len: usize) {
        if self.try_grow(len).is_err() {
            let layout = std::alloc::Layout::array::<f64>(len).unwrap_or(std::alloc::Layout::new::<f64>());
            std::alloc::handle_alloc_error(layout);
        }
    }

    /// Entries `r` of the aligned storage, with one bounds check (the `Deref` then an index
    /// would check twice: a hot path of the tiles reads a column per call).
    #[inline(always)]
    pub(crate) fn range(&self, r: std::ops::Range<usize>) -> &[f64] {
        &self.data[self.start + r.start..self.start + r.end]
    }
}

impl Clone for LineAligned {
    fn clone(&self) -> Self {
        let mut c = Self::default();
        let n = self.len();
        c.grow(n);
        c[..n].copy_from_slice(self);
        c
    }
}

impl std::ops::Deref for LineAligned {
    type Target = [f64];
    #[inline(always)]
    fn deref(&self) -> &[f64] {
        &self.data[self.start..]
    }
}

impl std::ops::DerefMut for LineAligned {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [f64] {
        &mut self.data[self.start..]
    }
}

/// A column-major copy of a `rows×cols` matrix whose columns are `ld = rows` rounded up to a
/// multiple of 4, padding rows 0 (grow-only storage). A stacked copy
/// ([`copy_stacked_from`](Self::copy_stacked_from)) holds two matrices with the same columns one
/// above the other, each part padded on its own, so that one product serves both.
#[derive(Debug, Clone, Default)]
pub(crate) struct PaddedMatrix {
    /// Rows of the first part.
    rows: usize,
    cols: usize,
    ld: usize,
    /// First stored row of the second part (a multiple of 4; `ld` when there is none) and its
    /// rows.
    second: usize,
    second_rows: usize,
    data: LineAligned,
}

impl PaddedMatrix {
    /// Copies `m`. Allocates only when `m` is larger than any matrix copied before, fallibly (the
    /// size is the caller's): on `Err` (the entries that could not be allocated) nothing changed.
    pub fn copy_from(&mut self, m: &DMatrixView<'_, f64>) -> Result<(), usize> {
        let (rows, cols) = m.shape();
        self.fill(rows, 0, cols, |c, body, _| body.copy_from_slice(m.column(c).as_slice()))
    }

    /// Copies `top` (first part) and `bottom` (second part, the same number of columns) stacked:
    /// column c holds `top`'s column c padded to whole vectors, then `bottom`'s. Allocation as
    /// [`copy_from`](Self::copy_from).
    pub fn copy_stacked_from(
        &mut self,
        top: &DMatrixView<'_, f64>,
        bottom: &DMatrixView<'_, f64>,
    ) -> Result<(), usize> {
        debug_assert_eq!(top.ncols(), bottom.ncols());
        self.fill(top.nrows(), bottom.nrows(), top.ncols(), |c, t, b| {
            t.copy_from_slice(top.column(c).as_slice());
            b.copy_from_slice(bottom.column(c).as_slice());
        })
    }

    /// Copies the `rows×cols` matrix whose entry (r, c) is `entry(r, c)`. Allocation as
    /// [`copy_from`](Self::copy_from).
    pub fn copy_with(
        &mut self,
        rows: usize,
        cols: usize,
        entry: impl Fn(usize, usize) -> f64,
    ) -> Result<(), usize> {
        self.fill(rows, 0, cols, |c, body, _| {
            for (r, x) in body.iter_mut().enumerate() {
                *x = entry(r, c);
            }
        })
    }

    /// Sizes the storage for parts of `rows` and `second_rows` rows and `cols` columns, zeroes the
    /// padding and lets `column(c, first, second)` write each column's parts.
    fn fill(
        &mut self,
        rows: usize,
        second_rows: usize,
        cols: usize,
        column: impl Fn(usize, &mut [f64], &mut [f64]),
    ) -> Result<(), usize> {
        let second = rows.div_ceil(PAD) * PAD;
        let ld = second.checked_add(second_rows.div_ceil(PAD) * PAD).ok_or(usize::MAX)?;
        let len = ld.checked_mul(cols).ok_or(usize::MAX)?;
        self.data.try_grow(len)?;
        (self.rows, self.cols, self.ld, self.second, self.second_rows) =
            (rows, cols, ld, second, second_rows);
        for (c, dst) in self.data[..ld * cols].chunks_exact_mut(ld.max(1)).enumerate() {
            let (first, rest) = dst.split_at_mut(second);
            let (body, pad) = first.split_at_mut(rows);
            pad.fill(0.0);
            let (body2, pad2) = rest.split_at_mut(second_rows);
            pad2.fill(0.0);
            column(c, body, body2);
        }
        Ok(())
    }

    /// Leading dimension: rows per stored column.
    #[cfg(test)]
    pub fn ld(&self) -> usize {
        self.ld
    }

    /// Column `c`, `ld` entries (rows past `rows` are 0).
    #[inline(always)]
    pub fn column(&self, c: usize) -> &[f64] {
        self.data.range(c * self.ld..(c + 1) * self.ld)
    }

    /// `out = m·v` (`v`: cols entries, `out`: rows entries), summed column by column: each entry
    /// is `((0 + m₀v₀) + m₁v₁) + …`, the order of a row-by-row dot product over increasing
    /// columns. With `FUSED` each step is one fused multiply-add (correctly rounded on every CPU
    /// pulp dispatches to) instead of a rounded product and a sum. Up to eight vectors of rows are
    /// accumulated in registers over all columns (eight independent chains of additions keep the
    /// adders busy), then stored.
    #[inline(always)]
    pub fn mul_vec<S: Simd, const FUSED: bool>(&self, simd: S, v: &[f64], out: &mut [f64]) {
        self.mul_vec_stacked::<S, FUSED>(simd, v, out, &mut []);
    }

    /// [`mul_vec`](Self::mul_vec) of a stacked copy: the first part's product into `out`, the
    /// second's into `out2` (every entry the operations of a product of its part alone), in one
    /// pass over the columns.
    #[inline(always)]
    pub fn mul_vec_stacked<S: Simd, const FUSED: bool>(
        &self,
        simd: S,
        v: &[f64],
        out: &mut [f64],
        out2: &mut [f64],
    ) {
        let nvec = self.ld / S::F64_LANES;
        let mut r = 0;
        while r < nvec {
            match nvec - r {
                1 => self.mul_rows::<S, FUSED, 1>(simd, v, out, out2, r),
                2 => self.mul_rows::<S, FUSED, 2>(simd, v, out, out2, r),
                3 => self.mul_rows::<S, FUSED, 3>(simd, v, out, out2, r),
                4 => self.mul_rows::<S, FUSED, 4>(simd, v, out, out2, r),
                5 => self.mul_rows::<S, FUSED, 5>(simd, v, out, out2, r),
                6 => self.mul_rows::<S, FUSED, 6>(simd, v, out, out2, r),
                7 => self.mul_rows::<S, FUSED, 7>(simd, v, out, out2, r),
                _ => self.mul_rows::<S, FUSED, 8>(simd, v, out, out2, r),
            }
            r += 8;
        }
    }

    /// Rows of vectors `r0..r0 + K` of `m·v` into `out` (first part) and `out2` (second part).
    #[inline(always)]
    fn mul_rows<S: Simd, const FUSED: bool, const K: usize>(
        &self,
        simd: S,
        v: &[f64],
        out: &mut [f64],
        out2: &mut [f64],
        r0: usize,
    ) {
        let lanes = S::F64_LANES;
        let mut acc = [simd.splat_f64s(0.0); K];
        self.add_product_sums::<S, FUSED, K>(simd, v, r0, &mut acc);
        let start = r0 * lanes;
        for (j, a) in acc.iter().enumerate() {
            // A vector never straddles the parts (the second starts at a multiple of 4).
            let lo = start + j * lanes;
            let (out, lo, rows) = if lo < self.second {
                (&mut *out, lo, self.rows)
            } else {
                (&mut *out2, lo - self.second, self.second_rows)
            };
            if lo + lanes <= rows {
                S::as_mut_simd_f64s(&mut out[lo..lo + lanes]).0[0] = *a;
            } else if lo < rows {
                simd.partial_store_f64s(&mut out[lo..rows], *a);
            }
        }
    }

    /// `out_t = Σᵢ (c₀ᵢ·col(3i) + c₁ᵢ·col(3i+1))` and `out_n = Σᵢ c₂ᵢ·col(3i+2)` over the column
    /// triples i in increasing order, `(c₀ᵢ, c₁ᵢ, c₂ᵢ) = coefficients(i)`: every entry is
    /// `((0 + t₀) + t₁) + …` with `t = c₀x₀ + c₁x₁` (rounded products, then a rounded sum), resp.
    /// `t = c₂x₂`. TAMSI's `Jtᵀ ft` and `Jnᵀ fn` from a copy whose column triples are the contacts'
    /// rows (t0, t1, n): the operations of `ContactBlocks::add_transposed` over every column
    /// (the zero columns it skips add exact zeros) in one pass with the sums in registers. Both
    /// outputs take `ld` entries (the padding rows get 0).
    #[inline(always)]
    pub fn add_triples<S: Simd>(
        &self,
        simd: S,
        out_t: &mut [f64],
        out_n: &mut [f64],
        coefficients: impl Fn(usize) -> (f64, f64, f64),
    ) {
        let nvec = self.ld / S::F64_LANES;
        let mut r = 0;
        while r < nvec {
            match nvec - r {
                1 => self.triple_rows::<S, 1>(simd, out_t, out_n, &coefficients, r),
                2 => self.triple_rows::<S, 2>(simd, out_t, out_n, &coefficients, r),
                3 => self.triple_rows::<S, 3>(simd, out_t, out_n, &coefficients, r),
                4 => self.triple_rows::<S, 4>(simd, out_t, out_n, &coefficients, r),
                5 => self.triple_rows::<S, 5>(simd, out_t, out_n, &coefficients, r),
                6 => self.triple_rows::<S, 6>(simd, out_t, out_n, &coefficients, r),
                7 => self.triple_rows::<S, 7>(simd, out_t, out_n, &coefficients, r),
                _ => self.triple_rows::<S, 8>(simd, out_t, out_n, &coefficients, r),
            }
            r += 8;
        }
    }

    /// Adds the terms of [`mul_vec`](Self::mul_vec) over the rows of vectors `r0..r0 + K` to
    /// `acc` (held in registers, `K ≤ 8`), column by column.
    #[inline(always)]
    fn add_product_sums<S: Simd, const FUSED: bool, const K: usize>(
        &self,
        simd: S,
        v: &[f64],
        r0: usize,
        acc: &mut [S::f64s; K],
    ) {
        for (col, &vc) in self.data[..self.ld * self.cols].chunks_exact(self.ld).zip(&v[..self.cols]) {
            let col = &S::as_simd_f64s(col).0[r0..r0 + K];
            let s = simd.splat_f64s(vc);
            for (a, &x) in acc.iter_mut().zip(col) {
                *a = if FUSED { simd.mul_add_f64s(x, s, *a) } else { simd.add_f64s(*a, simd.mul_f64s(x, s)) };
            }
        }
    }

    /// Adds the terms of [`add_triples`](Self::add_triples) over the rows of vectors
    /// `r0..r0 + K` to `acc_t` and `acc_n` (held in registers, `K ≤ 8`), contact by contact.
    #[inline(always)]
    fn add_triple_sums<S: Simd, const K: usize>(
        &self,
        simd: S,
        coefficients: &impl Fn(usize) -> (f64, f64, f64),
        r0: usize,
        acc_t: &mut [S::f64s; K],
        acc_n: &mut [S::f64s; K],
    ) {
        let triples = self.data[..self.ld * (self.cols / 3 * 3)].chunks_exact(3 * self.ld);
        for (i, cols) in triples.enumerate() {
            let (c0, c1, c2) = coefficients(i);
            let (c0, c1, c2) = (simd.splat_f64s(c0), simd.splat_f64s(c1), simd.splat_f64s(c2));
            let (x0, rest) = cols.split_at(self.ld);
            let (x1, x2) = rest.split_at(self.ld);
            let x0 = &S::as_simd_f64s(x0).0[r0..r0 + K];
            let x1 = &S::as_simd_f64s(x1).0[r0..r0 + K];
            let x2 = &S::as_simd_f64s(x2).0[r0..r0 + K];
            for ((((t, n), &x0), &x1), &x2) in acc_t.iter_mut().zip(acc_n.iter_mut()).zip(x0).zip(x1).zip(x2)
            {
                *t = simd.add_f64s(*t, simd.add_f64s(simd.mul_f64s(c0, x0), simd.mul_f64s(c1, x1)));
                *n = simd.add_f64s(*n, simd.mul_f64s(c2, x2));
            }
        }
    }

    /// TAMSI's `rhs = −(((M v − p*) − dt·Jnᵀ fn) − dt·Jtᵀ ft)` in one pass over the rows, the
    /// sums held in registers: `M v` as [`mul_vec`](Self::mul_vec) of `m` (fused with `FUSED`),
    /// `Jtᵀ ft` and `Jnᵀ fn` as [`add_triples`](Self::add_triples) of this copy, then the same
    /// separately rounded operations entry by entry as the scalar expression: the same bits as
    /// the three products stored and combined afterwards, without storing and reloading them
    /// (`docs/performance.md` §1, fifth pass). `m` has this copy's rows (the velocities) and
    /// `v.len()` columns; `rhs` and `p_star` have `rows` entries.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub fn residual<S: Simd, const FUSED: bool>(
        &self,
        simd: S,
        m: &PaddedMatrix,
        v: &[f64],
        p_star: &[f64],
        dt: f64,
        rhs: &mut [f64],
        coefficients: impl Fn(usize) -> (f64, f64, f64),
    ) {
        debug_assert_eq!((m.rows, m.ld), (self.rows, self.ld));
        let inputs = (m, v, p_star, dt);
        let nvec = self.ld / S::F64_LANES;
        let mut r = 0;
        while r < nvec {
            match nvec - r {
                1 => self.residual_rows::<S, FUSED, 1>(simd, inputs, rhs, &coefficients, r),
                2 => self.residual_rows::<S, FUSED, 2>(simd, inputs, rhs, &coefficients, r),
                3 => self.residual_rows::<S, FUSED, 3>(simd, inputs, rhs, &coefficients, r),
                4 => self.residual_rows::<S, FUSED, 4>(simd, inputs, rhs, &coefficients, r),
                5 => self.residual_rows::<S, FUSED, 5>(simd, inputs, rhs, &coefficients, r),
                6 => self.residual_rows::<S, FUSED, 6>(simd, inputs, rhs, &coefficients, r),
                7 => self.residual_rows::<S, FUSED, 7>(simd, inputs, rhs, &coefficients, r),
                _ => self.residual_rows::<S, FUSED, 8>(simd, inputs, rhs, &coefficients, r),
            }
            r += 8;
        }
    }

    /// Rows of vectors `r0..r0 + K` of [`residual`](Self::residual); `inputs` are its
    /// `(m, v, p_star, dt)`.
    #[inline(always)]
    fn residual_rows<S: Simd, const FUSED: bool, const K: usize>(
        &self,
        simd: S,
        (m, v, p_star, dt): (&PaddedMatrix, &[f64], &[f64], f64),
        rhs: &mut [f64],
        coefficients: &impl Fn(usize) -> (f64, f64, f64),
        r0: usize,
    ) {
        let lanes = S::F64_LANES;
        let zero = simd.splat_f64s(0.0);
        let (mut mv, mut acc_t, mut acc_n) = ([zero; K], [zero; K], [zero; K]);
        m.add_product_sums::<S, FUSED, K>(simd, v, r0, &mut mv);
        self.add_triple_sums::<S, K>(simd, coefficients, r0, &mut acc_t, &mut acc_n);
        let (rows, dt) = (self.rows, simd.splat_f64s(dt));
        for (j, ((&mv, &tn), &tt)) in mv.iter().zip(&acc_n).zip(&acc_t).enumerate() {
            let lo = (r0 + j) * lanes;
            if lo >= rows {
                break;
            }
            let whole = lo + lanes <= rows;
            let p = if whole {
                S::as_simd_f64s(&p_star[lo..lo + lanes]).0[0]
            } else {
                simd.partial_load_f64s(&p_star[lo..rows])
            };
            // −(((M v − p*) − dt·tau_n) − dt·tau_t), each operation rounded as in the scalar
            // expression; the negation flips the sign bit as the scalar `−` does.
            let x = simd
                .sub_f64s(simd.sub_f64s(simd.sub_f64s(mv, p), simd.mul_f64s(dt, tn)), simd.mul_f64s(dt, tt));
            let x = simd.neg_f64s(x);
            if whole {
                S::as_mut_simd_f64s(&mut rhs[lo..lo + lanes]).0[0] = x;
            } else {
                simd.partial_store_f64s(&mut rhs[lo..rows], x);
            }
        }
    }

    /// Rows of vectors `r0..r0 + K` of [`add_triples`](Self::add_triples) (K ≤ 8: both sums stay
    /// in registers).
    #[inline(always)]
    fn triple_rows<S: Simd, const K: usize>(
        &self,
        simd: S,
        out_t: &mut [f64],
        out_n: &mut [f64],
        coefficients: &impl Fn(usize) -> (f64, f64, f64),
        r0: usize,
    ) {
        let lanes = S::F64_LANES;
        let zero = simd.splat_f64s(0.0);
        let (mut acc_t, mut acc_n) = ([zero; K], [zero; K]);
        self.add_triple_sums::<S, K>(simd, coefficients, r0, &mut acc_t, &mut acc_n);
        let start = r0 * lanes;
        let out_t = S::as_mut_simd_f64s(&mut out_t[start..start + K * lanes]).0;
        let out_n = S::as_mut_simd_f64s(&mut out_n[start..start + K * lanes]).0;
        out_t.copy_from_slice(&acc_t);
        out_n.copy_from_slice(&acc_n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::DMatrix;
    use pulp::Scalar;

    #[test]
    fn line_aligned_storage_starts_on_a_cache_line() {
        let mut a = LineAligned::default();
        assert!(a.is_empty());
        for n in [1, 3, 8, 30, 64 * 60, 17] {
            a.grow(n);
            assert!(a.len() >= n, "n = {n}");
            assert_eq!(a.as_ptr() as usize % LINE_BYTES, 0, "n = {n}");
            a[..n].iter_mut().enumerate().for_each(|(i, x)| *x = i as f64);
            let c = a.clone();
            assert_eq!(c.as_ptr() as usize % LINE_BYTES, 0, "n = {n}: clone");
            assert_eq!(c[..n], a[..n], "n = {n}: clone");
        }
        // Growing no further keeps the storage; an impossible size is refused, nothing changed.
        let p = a.as_ptr();
        assert_eq!(a.try_grow(100), Ok(()));
        assert_eq!(a.as_ptr(), p);
        assert!(a.try_grow(usize::MAX).is_err());
        assert_eq!((a.as_ptr(), a[16]), (p, 16.0));
    }

    /// The product in the best instruction set of the CPU.
    struct Mul<'a, const FUSED: bool>(&'a PaddedMatrix, &'a [f64], &'a mut [f64]);

    impl<const FUSED: bool> crate::linalg::simd::WithSimd for Mul<'_, FUSED> {
        type Output = ();
        #[inline(always)]
        fn with_simd<S: Simd>(self, simd: S) {
            self.0.mul_vec::<S, FUSED>(simd, self.1, self.2)
        }
    }

    #[test]
    fn products_sum_column_by_column() {
        let mut p = PaddedMatrix::default();
        for (rows, cols) in [(4, 7), (9, 8), (2, 3), (13, 13), (33, 5), (0, 3), (5, 0)] {
            let m = DMatrix::<f64>::from_fn(rows, cols, |r, c| ((r * 7 + c * 3) % 11) as f64 * 0.1 - 0.4);
            p.copy_from(&m.as_view()).unwrap();
            assert_eq!(p.ld() % PAD, 0);
            let v: Vec<f64> = (0..cols).map(|k| 1.0 / (1.0 + k as f64)).collect();
            let (mut out, mut scalar, mut fused) =
                (vec![f64::NAN; rows], vec![f64::NAN; rows], vec![0.0; rows]);
            crate::linalg::simd::dispatch(Mul::<false>(&p, &v, &mut out));
            p.mul_vec::<_, false>(Scalar::new(), &v, &mut scalar);
            crate::linalg::simd::dispatch(Mul::<true>(&p, &v, &mut fused));
            for r in 0..rows {
                let (mut want, mut want_fused) = (0.0, 0.0f64);
                for c in 0..cols {
                    want += m[(r, c)] * v[c];
                    want_fused = m[(r, c)].mul_add(v[c], want_fused);
                }
                assert_eq!(out[r].to_bits(), want.to_bits(), "{rows}x{cols} row {r}");
                assert_eq!(scalar[r].to_bits(), want.to_bits(), "{rows}x{cols} row {r}");
                assert_eq!(fused[r].to_bits(), want_fused.to_bits(), "{rows}x{cols} row {r}");
            }
        }
    }

    /// The stacked product and the triples in the best instruction set of the CPU.
    struct Stacked<'a>(&'a PaddedMatrix, &'a [f64], &'a mut [f64], &'a mut [f64]);

    impl crate::linalg::simd::WithSimd for Stacked<'_> {
        type Output = ();
        #[inline(always)]
        fn with_simd<S: Simd>(self, simd: S) {
            self.0.mul_vec_stacked::<S, false>(simd, self.1, self.2, self.3)
        }
    }

    struct Triples<'a>(&'a PaddedMatrix, &'a [f64], &'a mut [f64], &'a mut [f64]);

    impl crate::linalg::simd::WithSimd for Triples<'_> {
        type Output = ();
        #[inline(always)]
        fn with_simd<S: Simd>(self, simd: S) {
            let c = self.1;
            self.0.add_triples(simd, self.2, self.3, |i| (c[3 * i], c[3 * i + 1], c[3 * i + 2]))
        }
    }

    /// The residual in one pass, in the best instruction set of the CPU.
    struct Residual<'a, const FUSED: bool> {
        triples: &'a PaddedMatrix,
        m: &'a PaddedMatrix,
        v: &'a [f64],
        p_star: &'a [f64],
        c: &'a [f64],
        rhs: &'a mut [f64],
    }

    impl<const FUSED: bool> crate::linalg::simd::WithSimd for Residual<'_, FUSED> {
        type Output = ();
        #[inline(always)]
        fn with_simd<S: Simd>(self, simd: S) {
            let c = self.c;
            let forces = |i: usize| (c[3 * i], c[3 * i + 1], c[3 * i + 2]);
            self.triples.residual::<S, FUSED>(simd, self.m, self.v, self.p_star, 0.01, self.rhs, forces)
        }
    }

    #[test]
    fn residual_in_one_pass_gives_the_bits_of_the_products_combined() {
        let entry = |seed: usize| move |r: usize, c: usize| ((r * 5 + c * 7 + seed) % 13) as f64 * 0.13 - 0.7;
        let (mut m, mut triples, mut products) =
            (PaddedMatrix::default(), PaddedMatrix::default(), PaddedMatrix::default());
        for (nv, nc) in [(6, 4), (12, 8), (30, 16), (3, 1), (9, 5), (33, 2)] {
            m.copy_with(nv, nv, entry(1)).unwrap();
            triples.copy_with(nv, 3 * nc, entry(4)).unwrap();
            let v: Vec<f64> = (0..nv).map(|k| (k as f64 * 0.3).cos()).collect();
            // A +0 force and a −0 momentum entry: the signs of zeros must follow the scalar code.
            let mut c: Vec<f64> = (0..3 * nc).map(|k| (k as f64 * 0.9).sin() * 50.0).collect();
            c[0] = 0.0;
            let mut p_star: Vec<f64> = (0..nv).map(|k| (k as f64 * 1.7).sin()).collect();
            p_star[nv - 1] = -0.0;
            for fused in [false, true] {
                let mut rhs = vec![f64::NAN; nv];
                let r =
                    |rhs| Residual::<false> { triples: &triples, m: &m, v: &v, p_star: &p_star, c: &c, rhs };
                if fused {
                    let Residual { triples, m, v, p_star, c, rhs } = r(&mut rhs);
                    crate::linalg::simd::dispatch(Residual::<true> { triples, m, v, p_star, c, rhs });
                } else {
                    crate::linalg::simd::dispatch(r(&mut rhs));
                }
                // The products one by one (scalar kernels), then the scalar expression.
                let ld = nv.div_ceil(PAD) * PAD;
                let (mut mv, mut tau_t, mut tau_n) = (vec![0.0; nv], vec![0.0; ld], vec![0.0; ld]);
                products.copy_with(nv, nv, entry(1)).unwrap();
                if fused {
                    products.mul_vec::<_, true>(Scalar::new(), &v, &mut mv);
                } else {
                    products.mul_vec::<_, false>(Scalar::new(), &v, &mut mv);
                }
                triples.add_triples(Scalar::new(), &mut tau_t, &mut tau_n, |i| {
                    (c[3 * i], c[3 * i + 1], c[3 * i + 2])
                });
                for k in 0..nv {
                    let want = -(((mv[k] - p_star[k]) - 0.01 * tau_n[k]) - 0.01 * tau_t[k]);
                    assert_eq!(rhs[k].to_bits(), want.to_bits(), "nv {nv}, nc {nc}, fused {fused}, row {k}");
                }
            }
        }
    }

    #[test]
    fn stacked_parts_and_triples_give_the_bits_of_the_parts_alone() {
        let entry = |seed: usize| move |r: usize, c: usize| ((r * 7 + c * 3 + seed) % 11) as f64 * 0.1 - 0.4;
        let (mut stacked, mut single, mut triples) =
            (PaddedMatrix::default(), PaddedMatrix::default(), PaddedMatrix::default());
        for (top_rows, bottom_rows, cols) in
            [(8, 4, 6), (6, 3, 7), (2, 1, 3), (32, 16, 30), (40, 20, 5), (0, 0, 4)]
        {
            let (top, bottom) =
                (DMatrix::from_fn(top_rows, cols, entry(0)), DMatrix::from_fn(bottom_rows, cols, entry(5)));
            stacked.copy_stacked_from(&top.as_view(), &bottom.as_view()).unwrap();
            let v: Vec<f64> = (0..cols).map(|k| 1.0 / (1.0 + k as f64)).collect();
            let (mut t, mut b) = (vec![f64::NAN; top_rows], vec![f64::NAN; bottom_rows]);
            crate::linalg::simd::dispatch(Stacked(&stacked, &v, &mut t, &mut b));
            for (part, got) in [(&top, &t), (&bottom, &b)] {
                single.copy_from(&part.as_view()).unwrap();
                let mut want = vec![f64::NAN; part.nrows()];
                single.mul_vec::<_, false>(Scalar::new(), &v, &mut want);
                let bits = |x: &[f64]| x.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(got), bits(&want), "{top_rows}+{bottom_rows}x{cols}");
            }
            // Column triples (t0, t1, n) of `cols / 3` contacts over `top_rows` velocities: the
            // sums of `(c0·x0 + c1·x1)` and `c2·x2` in contact order, from +0.
            let contacts = cols / 3;
            triples.copy_with(top_rows, 3 * contacts, entry(2)).unwrap();
            let c: Vec<f64> = (0..3 * contacts).map(|k| (k as f64 * 0.9).sin()).collect();
            let ld = top_rows.div_ceil(PAD) * PAD;
            let (mut out_t, mut out_n) = (vec![f64::NAN; ld], vec![f64::NAN; ld]);
            crate::linalg::simd::dispatch(Triples(&triples, &c, &mut out_t, &mut out_n));
            for r in 0..ld {
                let (mut want_t, mut want_n) = (0.0f64, 0.0f64);
                for i in 0..contacts {
                    let x = |k: usize| if r < top_rows { entry(2)(r, 3 * i + k) } else { 0.0 };
                    want_t += c[3 * i] * x(0) + c[3 * i + 1] * x(1);
                    want_n += c[3 * i + 2] * x(2);
                }
                assert_eq!(out_t[r].to_bits(), want_t.to_bits(), "{top_rows}x{contacts} row {r}");
                assert_eq!(out_n[r].to_bits(), want_n.to_bits(), "{top_rows}x{contacts} row {r}");
            }
        }
    }
}
