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

/// A column-major copy of a `rows×cols` matrix whose columns are `ld = rows` rounded up to a
/// multiple of 4, padding rows 0 (grow-only storage).
#[derive(Debug, Clone, Default)]
pub(crate) struct PaddedMatrix {
    rows: usize,
    cols: usize,
    ld: usize,
    data: Vec<f64>,
}

impl PaddedMatrix {
    /// Copies `m`. Allocates only when `m` is larger than any matrix copied before, fallibly (the
    /// size is the caller's): on `Err` (the entries that could not be allocated) nothing changed.
    pub fn copy_from(&mut self, m: &DMatrixView<'_, f64>) -> Result<(), usize> {
        let (rows, cols) = m.shape();
        let ld = rows.div_ceil(PAD) * PAD;
        let len = ld.checked_mul(cols).ok_or(usize::MAX)?;
        if self.data.len() < len {
            self.data.try_reserve_exact(len - self.data.len()).map_err(|_| len)?;
            self.data.resize(len, 0.0);
        }
        (self.rows, self.cols, self.ld) = (rows, cols, ld);
        for (c, dst) in self.data[..ld * cols].chunks_exact_mut(ld.max(1)).enumerate() {
            let (body, pad) = dst.split_at_mut(rows);
            body.copy_from_slice(m.column(c).as_slice());
            pad.fill(0.0);
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
        &self.data[c * self.ld..(c + 1) * self.ld]
    }

    /// `out = m·v` (`v`: cols entries, `out`: rows entries), summed column by column: each entry
    /// is `((0 + m₀v₀) + m₁v₁) + …`, the order of a row-by-row dot product over increasing
    /// columns. With `FUSED` each step is one fused multiply-add (correctly rounded on every CPU
    /// pulp dispatches to) instead of a rounded product and a sum. Up to eight vectors of rows are
    /// accumulated in registers over all columns (eight independent chains of additions keep the
    /// adders busy), then stored.
    #[inline(always)]
    pub fn mul_vec<S: Simd, const FUSED: bool>(&self, simd: S, v: &[f64], out: &mut [f64]) {
        let nvec = self.ld / S::F64_LANES;
        let mut r = 0;
        while r < nvec {
            match nvec - r {
                1 => self.mul_rows::<S, FUSED, 1>(simd, v, out, r),
                2 => self.mul_rows::<S, FUSED, 2>(simd, v, out, r),
                3 => self.mul_rows::<S, FUSED, 3>(simd, v, out, r),
                4 => self.mul_rows::<S, FUSED, 4>(simd, v, out, r),
                5 => self.mul_rows::<S, FUSED, 5>(simd, v, out, r),
                6 => self.mul_rows::<S, FUSED, 6>(simd, v, out, r),
                7 => self.mul_rows::<S, FUSED, 7>(simd, v, out, r),
                _ => self.mul_rows::<S, FUSED, 8>(simd, v, out, r),
            }
            r += 8;
        }
    }

    /// Rows of vectors `r0..r0 + K` of `m·v` into `out`.
    #[inline(always)]
    fn mul_rows<S: Simd, const FUSED: bool, const K: usize>(
        &self,
        simd: S,
        v: &[f64],
        out: &mut [f64],
        r0: usize,
    ) {
        let lanes = S::F64_LANES;
        let mut acc = [simd.splat_f64s(0.0); K];
        for (col, &vc) in self.data[..self.ld * self.cols].chunks_exact(self.ld).zip(&v[..self.cols]) {
            let col = &S::as_simd_f64s(col).0[r0..r0 + K];
            let s = simd.splat_f64s(vc);
            for (a, &x) in acc.iter_mut().zip(col) {
                *a = if FUSED { simd.mul_add_f64s(x, s, *a) } else { simd.add_f64s(*a, simd.mul_f64s(x, s)) };
            }
        }
        let start = r0 * lanes;
        for (j, a) in acc.iter().enumerate() {
            let lo = start + j * lanes;
            if lo + lanes <= self.rows {
                S::as_mut_simd_f64s(&mut out[lo..lo + lanes]).0[0] = *a;
            } else if lo < self.rows {
                simd.partial_store_f64s(&mut out[lo..self.rows], *a);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::DMatrix;
    use pulp::Scalar;

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
}
