//! Partial-pivot LU of a block-diagonal matrix made of many small dense square blocks of varying
//! sizes (e.g. the 2×2, 8×8 and 12×12 local Newton blocks of the interior-point solver's
//! contacts, `docs/ipm.md` §2.2 (b)).
//!
//! All blocks live back to back in one owned, grow-only buffer (each column-major, leading
//! dimension = its size), so factoring and solving thousands of tiny blocks touches no allocator
//! once the storage has grown. Each block is factored with row partial pivoting (first largest
//! |entry| wins, a zero pivot column is left unscaled, like Eigen's `PartialPivLU`); a singular
//! block factors anyway and its solves return non-finite values.

use super::grow;
use super::lu::factor_small_in_place;

/// Block-diagonal partial-pivot LU in owned, grow-only storage.
///
/// Usage: [`BlockDiagLu::clear`], then for every block [`BlockDiagLu::push_block`] and fill the
/// returned column-major `m×m` slice; [`BlockDiagLu::factor`]; then
/// [`BlockDiagLu::solve_block_in_place`] per block as often as needed.
#[derive(Debug, Clone, Default)]
pub struct BlockDiagLu {
    /// Per block: (offset into `a`, offset into `perm`, size m).
    blocks: Vec<(usize, usize, usize)>,
    /// The blocks, back to back, each column-major `m×m`; after `factor` their LU factors
    /// (unit-lower L below the diagonal, U on and above it).
    a: Vec<f64>,
    /// Per block: row i of `P A` is row `perm[i]` of A.
    perm: Vec<usize>,
    /// Per block: reciprocals of U's diagonal (the solve multiplies instead of dividing: a
    /// division chain dominated the solve).
    inv_diag: Vec<f64>,
    num_blocks: usize,
    len_a: usize,
    len_perm: usize,
}

impl BlockDiagLu {
    /// An empty factorization.
    pub fn new() -> Self {
        Self::default()
    }

    /// Makes sure `num_blocks` blocks holding `total_entries` matrix entries (Σ m²) and
    /// `total_dim` rows (Σ m) need no further allocation.
    pub fn reserve(&mut self, num_blocks: usize, total_entries: usize, total_dim: usize) {
        if self.blocks.len() < num_blocks {
            self.blocks.resize(num_blocks, (0, 0, 0));
        }
        grow(&mut self.a, total_entries);
        if self.perm.len() < total_dim {
            self.perm.resize(total_dim, 0);
        }
        grow(&mut self.inv_diag, total_dim);
    }

    /// Removes all blocks (keeps the storage).
    pub fn clear(&mut self) {
        self.num_blocks = 0;
        self.len_a = 0;
        self.len_perm = 0;
    }

    /// Number of blocks pushed since the last [`BlockDiagLu::clear`].
    pub fn num_blocks(&self) -> usize {
        self.num_blocks
    }

    /// Appends an `m×m` block and returns its column-major storage to fill (previous contents
    /// unspecified). Allocates only when the storage grows beyond every size seen before.
    pub fn push_block(&mut self, m: usize) -> &mut [f64] {
        let (oa, op) = (self.len_a, self.len_perm);
        if self.blocks.len() <= self.num_blocks {
            self.blocks.push((0, 0, 0));
        }
        self.blocks[self.num_blocks] = (oa, op, m);
        self.num_blocks += 1;
        self.len_a += m * m;
        self.len_perm += m;
        grow(&mut self.a, self.len_a);
        if self.perm.len() < self.len_perm {
            self.perm.resize(self.len_perm, 0);
        }
        grow(&mut self.inv_diag, self.len_perm);
        &mut self.a[oa..oa + m * m]
    }

    /// The (unfactored or factored) storage of block `i`, column-major `m×m`.
    pub fn block(&self, i: usize) -> &[f64] {
        let (oa, _, m) = self.blocks[i];
        &self.a[oa..oa + m * m]
    }

    /// Size of block `i`.
    pub fn block_dim(&self, i: usize) -> usize {
        self.blocks[i].2
    }

    /// Factors every block in place. Never fails (see the module docs for singular blocks).
    pub fn factor(&mut self) {
        for &(oa, op, m) in &self.blocks[..self.num_blocks] {
            let lu = &mut self.a[oa..oa + m * m];
            factor_small_in_place(lu, &mut self.perm[op..op + m], m);
            // A zero pivot gives an infinite reciprocal: the solve is non-finite, as documented.
            for (k, d) in self.inv_diag[op..op + m].iter_mut().enumerate() {
                *d = 1.0 / lu[k + k * m];
            }
        }
    }

    /// Solves `A_i x = b` in place for block `i` (`b.len()` = the block's size). `tmp` is scratch
    /// of at least that length.
    #[inline(always)]
    pub fn solve_block_in_place(&self, i: usize, b: &mut [f64], tmp: &mut [f64]) {
        let (oa, op, m) = self.blocks[i];
        assert_eq!(b.len(), m, "BlockDiagLu::solve_block_in_place: right-hand side length");
        let lu = &self.a[oa..oa + m * m];
        let perm = &self.perm[op..op + m];
        let inv = &self.inv_diag[op..op + m];
        // Fixed sizes let the compiler unroll the short loops of the common block sizes.
        match m {
            2 => solve_fixed::<2>(lu, perm, inv, b),
            8 => solve_fixed::<8>(lu, perm, inv, b),
            12 => solve_fixed::<12>(lu, perm, inv, b),
            _ => solve_dyn(lu, perm, inv, b, &mut tmp[..m]),
        }
    }
}

#[inline(always)]
fn solve_fixed<const M: usize>(lu: &[f64], perm: &[usize], inv: &[f64], b: &mut [f64]) {
    let mut t = [0.0; M];
    for (x, &p) in t.iter_mut().zip(perm) {
        *x = b[p];
    }
    for j in 0..M {
        let yj = t[j];
        let col = &lu[j * M..(j + 1) * M];
        for i in j + 1..M {
            t[i] -= col[i] * yj;
        }
    }
    for j in (0..M).rev() {
        let xj = t[j] * inv[j];
        t[j] = xj;
        let col = &lu[j * M..(j + 1) * M];
        for i in 0..j {
            t[i] -= col[i] * xj;
        }
    }
    b.copy_from_slice(&t);
}

fn solve_dyn(lu: &[f64], perm: &[usize], inv: &[f64], b: &mut [f64], tmp: &mut [f64]) {
    let m = b.len();
    for (t, &p) in tmp.iter_mut().zip(perm) {
        *t = b[p];
    }
    for j in 0..m {
        let yj = tmp[j];
        for (yi, &l) in tmp[j + 1..].iter_mut().zip(&lu[j * m + j + 1..(j + 1) * m]) {
            *yi -= l * yj;
        }
    }
    for j in (0..m).rev() {
        let xj = tmp[j] * inv[j];
        tmp[j] = xj;
        for (yi, &u) in tmp[..j].iter_mut().zip(&lu[j * m..j * m + j]) {
            *yi -= u * xj;
        }
    }
    b.copy_from_slice(tmp);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::test_rng;
    use nalgebra::{DMatrix, DVector};

    #[test]
    fn solves_blocks_of_mixed_sizes() {
        let sizes = [2usize, 8, 12, 1, 8, 0, 5];
        let mats: Vec<DMatrix<f64>> =
            sizes.iter().enumerate().map(|(i, &m)| test_rng::matrix(m, 11 + i as u64)).collect();
        let mut f = BlockDiagLu::new();
        for round in 0..2 {
            f.clear();
            for a in &mats {
                f.push_block(a.nrows()).copy_from_slice(a.as_slice());
            }
            assert_eq!(f.num_blocks(), sizes.len());
            f.factor();
            let mut tmp = vec![0.0; 12];
            for (i, a) in mats.iter().enumerate() {
                let m = a.nrows();
                assert_eq!(f.block_dim(i), m);
                let x_true = DVector::from_fn(m, |r, _| (r as f64 + 0.3 * round as f64).cos());
                let mut x = (a * &x_true).as_slice().to_vec();
                f.solve_block_in_place(i, &mut x, &mut tmp);
                for (xi, ti) in x.iter().zip(x_true.iter()) {
                    assert!((xi - ti).abs() < 1e-11, "block {i}: {xi} vs {ti}");
                }
            }
        }
    }

    /// `A⁻¹ b` for one 2×2 block `a` (column-major), through the factorization.
    fn solve_2x2(a: [f64; 4], mut b: [f64; 2]) -> [f64; 2] {
        let mut f = BlockDiagLu::new();
        f.push_block(2).copy_from_slice(&a);
        f.factor();
        f.solve_block_in_place(0, &mut b, &mut [0.0; 2]);
        b
    }

    #[test]
    fn needs_pivoting() {
        // [[0, 1], [1, 0]] has a zero leading entry: without row pivoting it would divide by 0.
        let b = solve_2x2([0.0, 1.0, 1.0, 0.0], [3.0, 4.0]);
        assert_eq!(b, [4.0, 3.0]);
    }

    #[test]
    fn singular_block_solves_to_non_finite() {
        let b = solve_2x2([1.0, 2.0, 2.0, 4.0], [1.0, 1.0]);
        assert!(b.iter().any(|v| !v.is_finite()));
    }
}
