//! Block-sparse LU and LDLᵀ (`linalg::BlockSparseLu`, `linalg::BlockSparseLdlt`): solves on
//! random block patterns (trees of 6 and of 7–20 dofs; random graphs, chains, a 200-block
//! pile-like graph, the engine scenes' largest islands) with relative residual ≤ 1e-12, pattern
//! reuse, singular and non-finite input, and the error paths of the API.

mod support;

use contact_solvers::linalg::{BlockSparseLdlt, BlockSparseLu, Reuse, SparseError};
use nalgebra::{DMatrix, DVector};

/// xorshift64*: deterministic test data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [−1, 1).
    fn sym(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A block pattern: block sizes and coupled pairs (as a caller would pass them: any
/// orientation, duplicates).
#[derive(Clone, Debug)]
struct Pattern {
    dims: Vec<usize>,
    pairs: Vec<(usize, usize)>,
}

impl Pattern {
    fn n(&self) -> usize {
        self.dims.iter().sum()
    }
    fn offsets(&self) -> Vec<usize> {
        let mut o = vec![0];
        for &d in &self.dims {
            o.push(o.last().unwrap() + d);
        }
        o
    }
    /// Distinct unordered pairs.
    fn unique_pairs(&self) -> Vec<(usize, usize)> {
        let mut p: Vec<_> = self.pairs.iter().map(|&(a, b)| (a.min(b), a.max(b))).collect();
        p.sort_unstable();
        p.dedup();
        p
    }
}

/// Trees of 6 dofs, a share of them 7–20.
fn random_dims(rng: &mut Rng, nb: usize, share_large: f64) -> Vec<usize> {
    (0..nb)
        .map(|_| if (rng.next() % 1000) as f64 / 1000.0 < share_large { 7 + rng.below(14) } else { 6 })
        .collect()
}

fn random_graph(rng: &mut Rng, nb: usize, npairs: usize, share_large: f64) -> Pattern {
    let dims = random_dims(rng, nb, share_large);
    let mut pairs = Vec::new();
    while pairs.len() < npairs && nb > 1 {
        let (a, b) = (rng.below(nb), rng.below(nb));
        if a != b {
            pairs.push((a, b));
            // Contacts repeat between the same bodies.
            if rng.below(3) == 0 {
                pairs.push((b, a));
            }
        }
    }
    Pattern { dims, pairs }
}

fn chain(rng: &mut Rng, nb: usize) -> Pattern {
    let dims = random_dims(rng, nb, 0.3);
    Pattern { dims, pairs: (1..nb).map(|b| (b, b - 1)).collect() }
}

/// A pile: boxes on a jittered 3-D grid (5 × 5 × 8 = 200), each touching its grid neighbours
/// and a few diagonal ones, as in the engine's box piles.
fn pile(rng: &mut Rng) -> Pattern {
    let (nx, ny, nz) = (5, 5, 8);
    let id = |x: usize, y: usize, z: usize| x + nx * (y + ny * z);
    let mut pairs = Vec::new();
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                let me = id(x, y, z);
                if x + 1 < nx {
                    pairs.push((me, id(x + 1, y, z)));
                }
                if y + 1 < ny {
                    pairs.push((me, id(x, y + 1, z)));
                }
                if z + 1 < nz {
                    // Several contact points per touching pair.
                    for _ in 0..4 {
                        pairs.push((id(x, y, z + 1), me));
                    }
                    if x + 1 < nx && rng.below(3) == 0 {
                        pairs.push((me, id(x + 1, y, z + 1)));
                    }
                    if y + 1 < ny && rng.below(3) == 0 {
                        pairs.push((id(x, y + 1, z + 1), me));
                    }
                }
            }
        }
    }
    Pattern { dims: vec![6; nx * ny * nz], pairs }
}

/// How the values are made.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Values {
    /// Strictly diagonally dominant by rows, unsymmetric.
    Dominant,
    /// `M + Σ Jₐᵀ W J_b` with SPD tree blocks M and stiff contacts (unsymmetric 3×3 W): the
    /// contact terms dominate, rows are far from diagonally dominant.
    Contact,
    /// Diagonal blocks `10·C + E` with C a cyclic shift (ones above the diagonal and in the
    /// corner) and E small with a zero diagonal, weak coupling: every diagonal entry of the
    /// matrix is exactly zero, so elimination without row exchanges breaks down at once.
    NeedsPivoting,
    /// Symmetric `M + Σ Jᵀ W J` with symmetric W of both signs (indefinite in places).
    Symmetric,
    /// Symmetric indefinite: diagonal blocks with diagonal (0, ±10, ±10, …) and 1e-2 entries
    /// elsewhere, weak coupling. The first diagonal entry of every block is exactly zero, so
    /// LDLᵀ without symmetric exchanges breaks down at once.
    SymmetricNeedsPivoting,
}

/// The dense matrix with the pattern's block structure.
fn matrix(rng: &mut Rng, p: &Pattern, values: Values) -> DMatrix<f64> {
    let n = p.n();
    let off = p.offsets();
    let mut a = DMatrix::zeros(n, n);
    let blk = |a: &mut DMatrix<f64>, i: usize, j: usize, m: &DMatrix<f64>| {
        let mut v = a.view_mut((off[i], off[j]), (p.dims[i], p.dims[j]));
        v += m;
    };
    match values {
        Values::Dominant => {
            for b in 0..p.dims.len() {
                let m = DMatrix::from_fn(p.dims[b], p.dims[b], |_, _| rng.sym());
                blk(&mut a, b, b, &m);
            }
            for &(x, y) in &p.unique_pairs() {
                let m1 = DMatrix::from_fn(p.dims[x], p.dims[y], |_, _| rng.sym());
                let m2 = DMatrix::from_fn(p.dims[y], p.dims[x], |_, _| rng.sym());
                blk(&mut a, x, y, &m1);
                blk(&mut a, y, x, &m2);
            }
            for i in 0..n {
                let s: f64 = a.row(i).iter().map(|v| v.abs()).sum();
                a[(i, i)] = s + 1.0;
            }
        }
        Values::NeedsPivoting => {
            for b in 0..p.dims.len() {
                let d = p.dims[b];
                let m = DMatrix::from_fn(d, d, |i, j| {
                    if j == (i + 1) % d {
                        10.0
                    } else if i == j {
                        0.0
                    } else {
                        1e-3 * rng.sym()
                    }
                });
                blk(&mut a, b, b, &m);
            }
            for &(x, y) in &p.unique_pairs() {
                let m1 = DMatrix::from_fn(p.dims[x], p.dims[y], |_, _| 1e-2 * rng.sym());
                let m2 = DMatrix::from_fn(p.dims[y], p.dims[x], |_, _| 1e-2 * rng.sym());
                blk(&mut a, x, y, &m1);
                blk(&mut a, y, x, &m2);
            }
        }
        Values::SymmetricNeedsPivoting => {
            for b in 0..p.dims.len() {
                let d = p.dims[b];
                let mut m = DMatrix::from_fn(d, d, |_, _| 1e-2 * rng.sym());
                m = &m + m.transpose();
                for i in 0..d {
                    m[(i, i)] = if i == 0 {
                        0.0
                    } else if rng.below(2) == 0 {
                        10.0
                    } else {
                        -10.0
                    };
                }
                blk(&mut a, b, b, &m);
            }
            for &(x, y) in &p.unique_pairs() {
                let m = DMatrix::from_fn(p.dims[x], p.dims[y], |_, _| 1e-2 * rng.sym());
                blk(&mut a, x, y, &m);
                blk(&mut a, y, x, &m.transpose());
            }
        }
        Values::Contact | Values::Symmetric => {
            for b in 0..p.dims.len() {
                let d = p.dims[b];
                let g = DMatrix::from_fn(d, d, |_, _| rng.sym());
                let m = &g * g.transpose() + DMatrix::identity(d, d) * 0.5;
                blk(&mut a, b, b, &m);
            }
            for &(x, y) in &p.pairs {
                let jx = DMatrix::from_fn(3, p.dims[x], |_, _| rng.sym());
                let jy = DMatrix::from_fn(3, p.dims[y], |_, _| rng.sym());
                let mut w = DMatrix::from_fn(3, 3, |_, _| 50.0 * rng.sym());
                if values == Values::Symmetric {
                    w = &w + w.transpose();
                } else {
                    w += DMatrix::identity(3, 3) * 100.0;
                }
                for (ta, ja) in [(x, &jx), (y, &jy)] {
                    for (tb, jb) in [(x, &jx), (y, &jy)] {
                        blk(&mut a, ta, tb, &(ja.transpose() * &w * jb));
                    }
                }
            }
            if values == Values::Symmetric {
                // The products are symmetric only up to rounding.
                a = (&a + a.transpose()) * 0.5;
            }
        }
    }
    a
}

/// Adds the pattern's blocks of `a` into the LU's storage.
fn assemble_lu(f: &mut BlockSparseLu, p: &Pattern, a: &DMatrix<f64>) {
    let off = p.offsets();
    f.clear_values();
    let mut put = |i: usize, j: usize| {
        let mut v = f.block_mut(i, j).unwrap();
        v += a.view((off[i], off[j]), (p.dims[i], p.dims[j]));
    };
    for b in 0..p.dims.len() {
        put(b, b);
    }
    for &(x, y) in &p.unique_pairs() {
        put(x, y);
        put(y, x);
    }
}

/// Adds the lower half of symmetric `a` into the LDLᵀ's storage (each pair once, in a random
/// orientation; full diagonal blocks).
fn assemble_ldlt(f: &mut BlockSparseLdlt, p: &Pattern, a: &DMatrix<f64>, rng: &mut Rng) {
    let off = p.offsets();
    f.clear_values();
    for b in 0..p.dims.len() {
        let mut v = f.block_mut(b, b).unwrap();
        v += a.view((off[b], off[b]), (p.dims[b], p.dims[b]));
    }
    for &(x, y) in &p.unique_pairs() {
        let (i, j) = if rng.below(2) == 0 { (x, y) } else { (y, x) };
        let mut v = f.block_mut(i, j).unwrap();
        v += a.view((off[i], off[j]), (p.dims[i], p.dims[j]));
    }
}

/// Normwise relative residual ‖A x − b‖∞ / (‖A‖∞ ‖x‖∞ + ‖b‖∞).
fn relative_residual(a: &DMatrix<f64>, x: &[f64], b: &[f64]) -> f64 {
    let x = DVector::from_column_slice(x);
    let b = DVector::from_column_slice(b);
    let r = a * &x - &b;
    let norm_a = a.row_iter().map(|row| row.iter().map(|v| v.abs()).sum::<f64>()).fold(0.0, f64::max);
    r.amax() / (norm_a * x.amax() + b.amax())
}

fn rhs(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n).map(|_| rng.sym()).collect()
}

/// Factors `a` with the LU and checks three solves.
fn check_lu(f: &mut BlockSparseLu, p: &Pattern, a: &DMatrix<f64>, rng: &mut Rng, what: &str) {
    assemble_lu(f, p, a);
    f.factor().unwrap_or_else(|e| panic!("{what}: {e}"));
    for _ in 0..3 {
        let b = rhs(rng, p.n());
        let mut x = b.clone();
        f.solve_in_place(&mut x).unwrap();
        let res = relative_residual(a, &x, &b);
        assert!(res <= 1e-12, "{what}: relative residual {res:e}");
    }
}

fn check_ldlt(f: &mut BlockSparseLdlt, p: &Pattern, a: &DMatrix<f64>, rng: &mut Rng, what: &str) {
    assemble_ldlt(f, p, a, rng);
    f.factor().unwrap_or_else(|e| panic!("{what}: {e}"));
    for _ in 0..3 {
        let b = rhs(rng, p.n());
        let mut x = b.clone();
        f.solve_in_place(&mut x).unwrap();
        let res = relative_residual(a, &x, &b);
        assert!(res <= 1e-12, "{what}: relative residual {res:e}");
    }
}

fn test_patterns(rng: &mut Rng) -> Vec<(String, Pattern)> {
    let mut v = vec![
        ("one block".to_string(), Pattern { dims: vec![6], pairs: vec![] }),
        ("two blocks, no pair".to_string(), Pattern { dims: vec![6, 9], pairs: vec![] }),
        ("chain 40".to_string(), chain(rng, 40)),
        ("pile 200".to_string(), pile(rng)),
    ];
    for (k, &(nb, np, large)) in
        [(5, 6, 0.5), (20, 30, 0.3), (60, 120, 0.2), (120, 300, 0.1), (30, 200, 0.5)].iter().enumerate()
    {
        v.push((format!("random graph {k} ({nb} blocks, {np} pairs)"), random_graph(rng, nb, np, large)));
    }
    v
}

#[test]
fn lu_solves_random_block_patterns() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut f = BlockSparseLu::new();
    for (name, p) in test_patterns(&mut rng) {
        f.analyze(&p.dims, &p.pairs).unwrap();
        assert_eq!(f.dim(), p.n());
        for values in [Values::Dominant, Values::Contact, Values::NeedsPivoting] {
            let a = matrix(&mut rng, &p, values);
            check_lu(&mut f, &p, &a, &mut rng, &format!("{name}, {values:?}"));
        }
    }
}

#[test]
fn ldlt_solves_random_block_patterns() {
    let mut rng = Rng(0x0fed_cba9_8765_4321);
    let mut f = BlockSparseLdlt::new();
    for (name, p) in test_patterns(&mut rng) {
        f.analyze(&p.dims, &p.pairs).unwrap();
        for values in [Values::Symmetric, Values::SymmetricNeedsPivoting] {
            let a = matrix(&mut rng, &p, values);
            assert!(a == a.transpose(), "{name}: test matrix not symmetric");
            check_ldlt(&mut f, &p, &a, &mut rng, &format!("{name}, {values:?}"));
        }
    }
}
