//! Borrowed block-sparse (M, J) values and their products.

use nalgebra::DMatrixView;

use super::{BlockSparseError, BlockSparseLayout};
use crate::linalg::first_not_finite_at_least;

/// A block-sparse (M, J) pair: a [`BlockSparseLayout`] and the packed values it describes,
/// borrowed from the caller (`docs/block_sparse.md` §1).
///
/// * `m`: the trees' diagonal blocks of the mass matrix, back to back, each `n_t×n_t`
///   column-major (kg, kg·m² for angular coordinates); [`BlockSparseLayout::m_len`] values.
///   Symmetric positive definite per tree; solvers that use a symmetric factorization read only the
///   lower triangle, as the dense path does.
/// * `j`: per contact, one `3×n_t` column-major block per tree it touches; rows (normal,
///   tangent 1, tangent 2) map velocities to the contact's relative velocity (m/s), the normal
///   component positive when the bodies separate; [`BlockSparseLayout::j_len`] values.
///
/// Every value must be finite (checked by [`new`](Self::new)).
#[derive(Debug, Clone, Copy)]
pub struct BlockSparseSystem<'a> {
    layout: &'a BlockSparseLayout,
    m: &'a [f64],
    j: &'a [f64],
}

impl<'a> BlockSparseSystem<'a> {
    /// Checks the lengths of packed `m` and `j` against `layout` and that every value is finite.
    pub fn new(layout: &'a BlockSparseLayout, m: &'a [f64], j: &'a [f64]) -> Result<Self, BlockSparseError> {
        for (what, values, want) in [("M", m, layout.m_len()), ("J", j, layout.j_len())] {
            if values.len() != want {
                return Err(BlockSparseError::Length { what, got: values.len(), want });
            }
            // Vectorized (a per-chunk `x·0` sum was 4 % of a warm live-loop step,
            // `docs/performance.md` §3 "The live loop").
            if let Some(index) = first_not_finite_at_least(values, f64::NEG_INFINITY) {
                return Err(BlockSparseError::NonFinite { what, index, value: values[index] });
            }
        }
        Ok(Self { layout, m, j })
    }

    /// As [`new`](Self::new) without the scan for non-finite values, for arrays that an earlier
    /// [`new`](Self::new) accepted and that have not changed since (the C API's borrowed data,
    /// checked when it was set and re-viewed at every solve). The lengths are checked.
    pub(crate) fn with_checked_values(
        layout: &'a BlockSparseLayout,
        m: &'a [f64],
        j: &'a [f64],
    ) -> Result<Self, BlockSparseError> {
        for (what, values, want) in [("M", m, layout.m_len()), ("J", j, layout.j_len())] {
            if values.len() != want {
                return Err(BlockSparseError::Length { what, got: values.len(), want });
            }
        }
        Ok(Self { layout, m, j })
    }

    /// The structure.
    #[inline]
    pub fn layout(&self) -> &'a BlockSparseLayout {
        self.layout
    }

    /// Number of generalized velocities.
    #[inline]
    pub fn num_velocities(&self) -> usize {
        self.layout.num_velocities()
    }

    /// Number of contacts.
    #[inline]
    pub fn num_contacts(&self) -> usize {
        self.layout.num_contacts()
    }

    /// Tree t's diagonal block of M, `n_t×n_t`.
    #[inline]
    pub fn m_block(&self, t: usize) -> DMatrixView<'a, f64> {
        let n = self.layout.tree_dofs(t);
        let k = self.layout.m_offset(t);
        DMatrixView::from_slice(&self.m[k..k + n * n], n, n)
    }

    /// Tree t's diagonal block of M as its packed values (`n_t²`, column-major).
    #[inline]
    pub fn m_values(&self, t: usize) -> &'a [f64] {
        let n = self.layout.tree_dofs(t);
        let k = self.layout.m_offset(t);
        &self.m[k..k + n * n]
    }

    /// Packed J: every contact's blocks back to back ([`BlockSparseLayout::j_len`] values).
    #[inline]
    pub(crate) fn j_values(&self) -> &'a [f64] {
        self.j
    }

    /// Contact i's Jacobian blocks: its first tree and `3×n_a` block, and, if it touches two
    /// trees, the second tree and its `3×n_b` block.
    #[inline]
    pub fn j_blocks(&self, i: usize) -> [Option<(usize, &'a [f64])>; 2] {
        let (a, b) = self.layout.contact_trees(i);
        let k = self.layout.j_offset(i);
        let la = 3 * self.layout.tree_dofs(a);
        let first = Some((a, &self.j[k..k + la]));
        let second = b.map(|b| (b, &self.j[k + la..k + la + 3 * self.layout.tree_dofs(b)]));
        [first, second]
    }

    /// `M v` block by block into `out` (both nv).
    #[inline(always)]
    pub fn mul_m(&self, v: &[f64], out: &mut [f64]) {
        for t in 0..self.layout.num_trees() {
            let r = self.layout.tree_range(t);
            self.mul_m_tree(t, &v[r.clone()], &mut out[r]);
        }
    }

    /// `M_t v_t` of tree t into `out` (`v_t`, `out`: the tree's entries), as [`mul_m`](Self::mul_m).
    #[inline(always)]
    pub fn mul_m_tree(&self, t: usize, v: &[f64], out: &mut [f64]) {
        let n = self.layout.tree_dofs(t);
        let m = &self.m[self.layout.m_offset(t)..][..n * n];
        if let (Ok(m), Ok(v), Ok(out)) =
            (<&[f64; 36]>::try_from(m), <&[f64; 6]>::try_from(v), <&mut [f64; 6]>::try_from(&mut *out))
        {
            // A free body: the same operations with fixed lengths (unrolled, vectorized).
            let mut o = [0.0; 6];
            for c in 0..6 {
                for r in 0..6 {
                    o[r] = m[6 * c + r].mul_add(v[c], o[r]);
                }
            }
            *out = o;
            return;
        }
        out.fill(0.0);
        for (col, &x) in m.chunks_exact(n).zip(v) {
            for (o, &a) in out.iter_mut().zip(col) {
                *o = a.mul_add(x, *o);
            }
        }
    }

    /// Contact i's relative velocity `J_i v` (normal, tangent 1, tangent 2; m/s).
    #[inline]
    pub fn contact_velocity(&self, i: usize, v: &[f64]) -> [f64; 3] {
        let mut u = [0.0; 3];
        for (t, block) in self.j_blocks(i).into_iter().flatten() {
            let vt = &v[self.layout.tree_range(t)];
            for (col, &x) in block.chunks_exact(3).zip(vt) {
                u[0] += col[0] * x;
                u[1] += col[1] * x;
                u[2] += col[2] * x;
            }
        }
        u
    }

    /// `out += J_iᵀ f` for contact i with `f` = (normal, tangent 1, tangent 2) (`out`: nv).
    #[inline]
    pub fn add_contact_force(&self, i: usize, f: [f64; 3], out: &mut [f64]) {
        for (t, block) in self.j_blocks(i).into_iter().flatten() {
            let o = &mut out[self.layout.tree_range(t)];
            for (col, o) in block.chunks_exact(3).zip(o) {
                *o += col[0] * f[0] + col[1] * f[1] + col[2] * f[2];
            }
        }
    }

    /// The dense matrices of this system, column-major: M (nv×nv) and J (3nc×nv, rows normal,
    /// tangent 1, tangent 2 per contact). For tests and debugging.
    pub fn to_dense(&self) -> (nalgebra::DMatrix<f64>, nalgebra::DMatrix<f64>) {
        let (nv, nc) = (self.num_velocities(), self.num_contacts());
        let mut m = nalgebra::DMatrix::zeros(nv, nv);
        for t in 0..self.layout.num_trees() {
            let r = self.layout.tree_range(t);
            m.view_mut((r.start, r.start), (r.len(), r.len())).copy_from(&self.m_block(t));
        }
        let mut j = nalgebra::DMatrix::zeros(3 * nc, nv);
        for i in 0..nc {
            for (t, block) in self.j_blocks(i).into_iter().flatten() {
                let r = self.layout.tree_range(t);
                j.view_mut((3 * i, r.start), (3, r.len())).copy_from_slice(block);
            }
        }
        (m, j)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(len: usize, seed: f64) -> Vec<f64> {
        (0..len).map(|k| ((k as f64 + seed) * 0.731).sin()).collect()
    }

    #[test]
    fn products_equal_the_dense_ones() {
        let mut layout = BlockSparseLayout::new();
        layout.set(&[2, 3, 1], &[(1, Some(0)), (2, None), (0, Some(2))]).unwrap();
        let (m, j) = (values(layout.m_len(), 0.5), values(layout.j_len(), 1.5));
        let s = BlockSparseSystem::new(&layout, &m, &j).unwrap();
        let (md, jd) = s.to_dense();
        let v = values(6, 3.0);
        let mut mv = vec![0.0; 6];
        s.mul_m(&v, &mut mv);
        let want = &md * nalgebra::DVector::from_column_slice(&v);
        assert!(mv.iter().zip(want.iter()).all(|(a, b)| (a - b).abs() < 1e-14));
        let jv = &jd * nalgebra::DVector::from_column_slice(&v);
        for i in 0..3 {
            let u = s.contact_velocity(i, &v);
            assert!((0..3).all(|r| (u[r] - jv[3 * i + r]).abs() < 1e-14));
        }
        let f = values(9, 7.0);
        let mut jtf = vec![0.0; 6];
        for i in 0..3 {
            s.add_contact_force(i, [f[3 * i], f[3 * i + 1], f[3 * i + 2]], &mut jtf);
        }
        let want = jd.transpose() * nalgebra::DVector::from_column_slice(&f);
        assert!(jtf.iter().zip(want.iter()).all(|(a, b)| (a - b).abs() < 1e-14));
    }

    #[test]
    fn lengths_and_finiteness_are_checked() {
        let mut layout = BlockSparseLayout::new();
        layout.set(&[2, 1], &[(0, Some(1))]).unwrap();
        let (m, mut j) = (vec![1.0; 5], vec![0.0; 9]);
        let e = BlockSparseSystem::new(&layout, &m[..4], &j).unwrap_err();
        assert_eq!(e, BlockSparseError::Length { what: "M", got: 4, want: 5 });
        j[7] = f64::INFINITY;
        let e = BlockSparseSystem::new(&layout, &m, &j).unwrap_err();
        assert_eq!(e.to_string(), "J[7] = inf is not finite");
    }
}
