//! Block-sparse LU and LDLᵀ (`linalg::BlockSparseLu`, `linalg::BlockSparseLdlt`): solves on
//! random block patterns (trees of 6 and of 7–20 dofs; random graphs, chains, a 200-block
//! pile-like graph, the engine scenes' largest islands) with relative residual ≤ 1e-12, pattern
//! reuse, singular and non-finite input, and the error paths of the API.

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
    for (b, &d) in p.dims.iter().enumerate() {
        let mut v = f.block_mut(b, b).unwrap();
        v += a.view((off[b], off[b]), (d, d));
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

/// Factors `a` with the LU and checks three solves and three transposed solves.
fn check_lu(f: &mut BlockSparseLu, p: &Pattern, a: &DMatrix<f64>, rng: &mut Rng, what: &str) {
    assemble_lu(f, p, a);
    f.factor().unwrap_or_else(|e| panic!("{what}: {e}"));
    for _ in 0..3 {
        let b = rhs(rng, p.n());
        let mut x = b.clone();
        f.solve_in_place(&mut x).unwrap();
        let res = relative_residual(a, &x, &b);
        assert!(res <= 1e-12, "{what}: relative residual {res:e}");
        // The transposed solve with the same factors.
        let mut y = b.clone();
        f.solve_transposed_in_place(&mut y).unwrap();
        let res = relative_residual(&a.transpose(), &y, &b);
        assert!(res <= 1e-12, "{what}: transposed relative residual {res:e}");
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
        // The transposed solve with the same factors.
        let mut y = b.clone();
        f.solve_transposed_in_place(&mut y).unwrap();
        let res = relative_residual(&a.transpose(), &y, &b);
        assert!(res <= 1e-12, "{what}: transposed relative residual {res:e}");
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
    let mut widest = 0;
    for (name, p) in test_patterns(&mut rng) {
        f.analyze(&p.dims, &p.pairs).unwrap();
        assert_eq!(f.dim(), p.n());
        widest = widest.max(f.stats().unwrap().max_supernode);
        for values in [Values::Dominant, Values::Contact, Values::NeedsPivoting] {
            let a = matrix(&mut rng, &p, values);
            check_lu(&mut f, &p, &a, &mut rng, &format!("{name}, {values:?}"));
        }
    }
    // Both diagonal-block kernels ran (the blocked one from this width on).
    assert!(widest >= contact_solvers::linalg::BLOCKED_MIN_DIM, "widest supernode {widest}");
}

#[test]
fn ldlt_solves_random_block_patterns() {
    let mut rng = Rng(0x0fed_cba9_8765_4321);
    let mut f = BlockSparseLdlt::new();
    let mut widest = 0;
    for (name, p) in test_patterns(&mut rng) {
        f.analyze(&p.dims, &p.pairs).unwrap();
        widest = widest.max(f.stats().unwrap().max_supernode);
        for values in [Values::Symmetric, Values::SymmetricNeedsPivoting] {
            let a = matrix(&mut rng, &p, values);
            assert!(a == a.transpose(), "{name}: test matrix not symmetric");
            check_ldlt(&mut f, &p, &a, &mut rng, &format!("{name}, {values:?}"));
        }
    }
    // Narrow and wide supernodes (L21 by rank-1 updates, and by a triangular solve).
    assert!(widest >= 64, "widest supernode {widest}");
}

#[test]
fn lu_of_a_pile_matches_the_dense_lu() {
    // Same solution as the dense partial-pivot LU, to the conditioning of the matrix.
    let mut rng = Rng(99);
    let p = pile(&mut rng);
    let a = matrix(&mut rng, &p, Values::Contact);
    let n = p.n();
    let mut f = BlockSparseLu::new();
    f.analyze(&p.dims, &p.pairs).unwrap();
    assemble_lu(&mut f, &p, &a);
    f.factor().unwrap();
    let b = rhs(&mut rng, n);
    let mut x = b.clone();
    f.solve_in_place(&mut x).unwrap();
    let mut dense = contact_solvers::linalg::PartialPivLu::with_capacity(n);
    dense.storage_mut(n).copy_from_slice(a.as_slice());
    dense.factor();
    let mut xd = b.clone();
    dense.solve_in_place(&mut xd, &mut vec![0.0; n]);
    let xd = DVector::from_column_slice(&xd);
    let diff = (DVector::from_column_slice(&x) - &xd).amax() / xd.amax();
    assert!(diff <= 1e-10, "sparse vs dense LU: relative difference {diff:e}");
}

/// Largest island of an engine scene: blocks = trees, one pair per two-tree contact.
fn largest_island(scene: &support::engine_scenes::Scene) -> (Pattern, Vec<usize>) {
    let nt = scene.trees.len();
    let mut parent: Vec<usize> = (0..nt).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    for c in &scene.contacts {
        if let Some(b) = c.tree_b {
            let (x, y) = (find(&mut parent, c.tree_a), find(&mut parent, b));
            parent[x] = y;
        }
    }
    let mut size = vec![0; nt];
    for t in 0..nt {
        let r = find(&mut parent, t);
        size[r] += scene.trees[t].1;
    }
    let root = (0..nt).max_by_key(|&t| size[t]).unwrap();
    let trees: Vec<usize> = (0..nt).filter(|&t| find(&mut parent, t) == root).collect();
    let local = |t: usize| trees.binary_search(&t).ok();
    let pairs = scene.contacts.iter().filter_map(|c| Some((local(c.tree_a)?, local(c.tree_b?)?))).collect();
    (Pattern { dims: trees.iter().map(|&t| scene.trees[t].1).collect(), pairs }, trees)
}

/// `M + Σ_c J_cᵀ W_c J_c` of the island with the scene's M and Jacobian blocks and
/// `W_c = dt·k·(I + 0.3·R_c)` (symmetrized for `sym`): a TAMSI Newton matrix's structure and
/// magnitudes.
fn scene_matrix(
    scene: &support::engine_scenes::Scene,
    p: &Pattern,
    trees: &[usize],
    rng: &mut Rng,
    sym: bool,
) -> DMatrix<f64> {
    let off = p.offsets();
    let n = p.n();
    let mut a = DMatrix::zeros(n, n);
    for (k, &t) in trees.iter().enumerate() {
        let d = p.dims[k];
        a.view_mut((off[k], off[k]), (d, d)).copy_from_slice(&scene.m_blocks[t]);
    }
    for c in &scene.contacts {
        let Ok(ka) = trees.binary_search(&c.tree_a) else { continue };
        let mut w = DMatrix::from_fn(3, 3, |i, j| (if i == j { 1.0 } else { 0.0 }) + 0.3 * rng.sym());
        if sym {
            w = (&w + w.transpose()) * 0.5;
        }
        w *= scene.dt * c.stiffness;
        let mut parts = vec![(ka, DMatrix::from_column_slice(3, p.dims[ka], &c.ja))];
        if let Some(b) = c.tree_b {
            let kb = trees.binary_search(&b).unwrap();
            parts.push((kb, DMatrix::from_column_slice(3, p.dims[kb], &c.jb)));
        }
        for (ta, ja) in &parts {
            for (tb, jb) in &parts {
                let mut v = a.view_mut((off[*ta], off[*tb]), (p.dims[*ta], p.dims[*tb]));
                v += ja.transpose() * &w * jb;
            }
        }
    }
    if sym { (&a + a.transpose()) * 0.5 } else { a }
}

#[test]
fn engine_scene_islands_solve() {
    let mut rng = Rng(7);
    let mut lu = BlockSparseLu::new();
    let mut ldlt = BlockSparseLdlt::new();
    for scene in support::engine_scenes::read_scenes() {
        let (p, trees) = largest_island(&scene);
        lu.analyze(&p.dims, &p.pairs).unwrap();
        ldlt.analyze(&p.dims, &p.pairs).unwrap();
        let a = scene_matrix(&scene, &p, &trees, &mut rng, false);
        check_lu(&mut lu, &p, &a, &mut rng, &scene.name);
        let a = scene_matrix(&scene, &p, &trees, &mut rng, true);
        check_ldlt(&mut ldlt, &p, &a, &mut rng, &scene.name);
    }
}

#[test]
fn analysis_is_reused_while_the_pattern_holds() {
    let mut rng = Rng(5);
    let p = random_graph(&mut rng, 40, 80, 0.2);
    let q = random_graph(&mut rng, 40, 80, 0.2);
    let mut f = BlockSparseLu::new();
    let analyses = |f: &BlockSparseLu| f.stats().unwrap().analyses;
    assert_eq!(f.stats(), None);
    assert_eq!(f.analyze(&p.dims, &p.pairs), Ok(Reuse::Analyzed));
    assert_eq!(analyses(&f), 1);
    // New values, same pattern: no analysis, still solves.
    for _ in 0..3 {
        assert_eq!(f.analyze(&p.dims, &p.pairs), Ok(Reuse::Unchanged));
        let a = matrix(&mut rng, &p, Values::Contact);
        check_lu(&mut f, &p, &a, &mut rng, "same pattern, new values");
    }
    // The same pattern given in another order, orientation and multiplicity.
    let mut shuffled: Vec<(usize, usize)> = p.pairs.iter().rev().map(|&(a, b)| (b, a)).collect();
    shuffled.extend_from_slice(&p.pairs[..5]);
    assert_eq!(f.analyze(&p.dims, &shuffled), Ok(Reuse::Unchanged));
    assert_eq!(analyses(&f), 1);
    // A changed pattern is analysed; the old one then comes from the cache.
    assert_eq!(f.analyze(&q.dims, &q.pairs), Ok(Reuse::Analyzed));
    assert_eq!(analyses(&f), 2);
    let a = matrix(&mut rng, &q, Values::Contact);
    check_lu(&mut f, &q, &a, &mut rng, "second pattern");
    assert_eq!(f.analyze(&p.dims, &p.pairs), Ok(Reuse::Cached));
    assert_eq!(f.analyze(&q.dims, &q.pairs), Ok(Reuse::Cached));
    assert_eq!(analyses(&f), 2);
    let a = matrix(&mut rng, &q, Values::Dominant);
    check_lu(&mut f, &q, &a, &mut rng, "second pattern from the cache");
    // One more pair, or one block size changed: a new pattern.
    let mut p2 = p.clone();
    p2.pairs.push((0, 39));
    if p.unique_pairs().contains(&(0, 39)) {
        p2.pairs.push((1, 38));
    }
    assert_eq!(f.analyze(&p2.dims, &p2.pairs), Ok(Reuse::Analyzed));
    let mut p3 = p.clone();
    p3.dims[7] += 1;
    assert_eq!(f.analyze(&p3.dims, &p3.pairs), Ok(Reuse::Analyzed));
    assert_eq!(analyses(&f), 4);
    let a = matrix(&mut rng, &p3, Values::Contact);
    check_lu(&mut f, &p3, &a, &mut rng, "changed block size");
    // With a cache of one analysis, alternating patterns are analysed every time.
    f.set_cache_capacity(1);
    for pattern in [&p, &q, &p] {
        assert_eq!(f.analyze(&pattern.dims, &pattern.pairs), Ok(Reuse::Analyzed));
    }
    assert_eq!(analyses(&f), 7);

    // The same for LDLᵀ.
    let mut g = BlockSparseLdlt::new();
    assert_eq!(g.analyze(&p.dims, &p.pairs), Ok(Reuse::Analyzed));
    assert_eq!(g.analyze(&p.dims, &shuffled), Ok(Reuse::Unchanged));
    assert_eq!(g.analyze(&q.dims, &q.pairs), Ok(Reuse::Analyzed));
    assert_eq!(g.analyze(&p.dims, &p.pairs), Ok(Reuse::Cached));
    assert_eq!(g.stats().unwrap().analyses, 2);
    let a = matrix(&mut rng, &p, Values::Symmetric);
    check_ldlt(&mut g, &p, &a, &mut rng, "LDLT from the cache");
}

#[test]
fn factorizations_can_move_between_threads() {
    fn send<T: Send>() {}
    send::<BlockSparseLu>();
    send::<BlockSparseLdlt>();
}

#[test]
fn invalid_use_is_an_error() {
    let mut f = BlockSparseLu::new();
    // Nothing analysed yet.
    assert_eq!(f.block_mut(0, 0).unwrap_err(), SparseError::NotAnalyzed);
    assert_eq!(f.factor(), Err(SparseError::NotAnalyzed));
    assert_eq!(f.solve_in_place(&mut []), Err(SparseError::NotFactored));
    assert_eq!(f.dim(), 0);
    // Invalid patterns.
    for (dims, pairs, what) in [
        (vec![6, 0, 6], vec![], "block 1 has size 0"),
        (vec![6, 6], vec![(0, 2)], "out of range"),
        (vec![6, 6], vec![(1, 1)], "with itself"),
        (vec![usize::MAX, 6], vec![], "overflows"),
    ] {
        match f.analyze(&dims, &pairs) {
            Err(SparseError::InvalidPattern(msg)) => assert!(msg.contains(what), "{msg}"),
            other => panic!("{dims:?} {pairs:?}: {other:?}"),
        }
    }
    assert_eq!(f.dim(), 0, "a failed analysis leaves no pattern");
    assert_eq!(f.factor(), Err(SparseError::NotAnalyzed));
    // An empty pattern is a 0×0 matrix.
    assert_eq!(f.analyze(&[], &[]), Ok(Reuse::Analyzed));
    f.clear_values();
    assert_eq!(f.factor(), Ok(()));
    assert_eq!(f.solve_in_place(&mut []), Ok(()));
    // A valid pattern: blocks outside it, right-hand sides of the wrong length, solving without
    // a factorization.
    let p = Pattern { dims: vec![6, 7, 8], pairs: vec![(0, 1)] };
    f.analyze(&p.dims, &p.pairs).unwrap();
    assert_eq!(f.block_mut(0, 2).unwrap_err(), SparseError::NotInPattern { a: 0, b: 2 });
    assert_eq!(f.block_mut(3, 3).unwrap_err(), SparseError::NotInPattern { a: 3, b: 3 });
    assert_eq!(f.block_mut(1, 0).unwrap().shape(), (7, 6));
    assert_eq!(f.solve_in_place(&mut [0.0; 21]), Err(SparseError::NotFactored));
    let mut rng = Rng(3);
    let a = matrix(&mut rng, &p, Values::Dominant);
    check_lu(&mut f, &p, &a, &mut rng, "3 blocks");
    assert_eq!(f.solve_in_place(&mut [0.0; 20]), Err(SparseError::RhsLength { expected: 21, got: 20 }));
    // Changing values invalidates the factorization.
    f.block_mut(0, 0).unwrap()[(0, 0)] += 1.0;
    assert_eq!(f.solve_in_place(&mut [0.0; 21]), Err(SparseError::NotFactored));
    f.clear_values();
    assert_eq!(f.solve_in_place(&mut [0.0; 21]), Err(SparseError::NotFactored));
}

/// Puts `value` at scalar (i, j) of the LU's storage.
fn poke_lu(f: &mut BlockSparseLu, p: &Pattern, i: usize, j: usize, value: f64) {
    let off = p.offsets();
    let (a, b) = (off.partition_point(|&o| o <= i) - 1, off.partition_point(|&o| o <= j) - 1);
    f.block_mut(a, b).unwrap()[(i - off[a], j - off[b])] = value;
}

#[test]
fn non_finite_values_are_rejected() {
    let mut rng = Rng(11);
    let p = random_graph(&mut rng, 30, 50, 0.3);
    let a = matrix(&mut rng, &p, Values::Contact);
    let off = p.offsets();
    let mut f = BlockSparseLu::new();
    f.analyze(&p.dims, &p.pairs).unwrap();
    let (x, y) = p.unique_pairs()[10];
    // In a diagonal block, in both off-diagonal blocks of a pair (one lands in an L panel, the
    // other in a U panel).
    for (i, j) in [(off[4] + 2, off[4] + 1), (off[x] + 1, off[y] + 2), (off[y] + 2, off[x])] {
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assemble_lu(&mut f, &p, &a);
            poke_lu(&mut f, &p, i, j, bad);
            assert_eq!(f.factor(), Err(SparseError::NonFinite { row: i, col: j }), "{bad} at ({i}, {j})");
            assert_eq!(f.solve_in_place(&mut vec![0.0; p.n()]), Err(SparseError::NotFactored));
        }
    }
    // Recovers with finite values.
    check_lu(&mut f, &p, &a, &mut rng, "after non-finite");

    // LDLᵀ reads only the lower triangle: a NaN above the diagonal of a diagonal block is never
    // read, one below it is rejected.
    let a = matrix(&mut rng, &p, Values::Symmetric);
    let mut g = BlockSparseLdlt::new();
    g.analyze(&p.dims, &p.pairs).unwrap();
    assemble_ldlt(&mut g, &p, &a, &mut rng);
    g.block_mut(4, 4).unwrap()[(0, 3)] = f64::NAN;
    g.factor().unwrap();
    let b = rhs(&mut rng, p.n());
    let mut sol = b.clone();
    g.solve_in_place(&mut sol).unwrap();
    assert!(relative_residual(&a, &sol, &b) <= 1e-12);
    assemble_ldlt(&mut g, &p, &a, &mut rng);
    g.block_mut(4, 4).unwrap()[(3, 0)] = f64::NAN;
    assert_eq!(g.factor(), Err(SparseError::NonFinite { row: off[4] + 3, col: off[4] }));
    assemble_ldlt(&mut g, &p, &a, &mut rng);
    g.block_mut(y, x).unwrap()[(1, 2)] = f64::INFINITY;
    let err = g.factor().unwrap_err();
    assert!(
        err == SparseError::NonFinite { row: off[y] + 1, col: off[x] + 2 }
            || err == SparseError::NonFinite { row: off[x] + 2, col: off[y] + 1 },
        "{err:?}"
    );
}

#[test]
fn badly_scaled_nonsingular_matrices_factor() {
    // Block rows and columns scaled by 1e-4 … 1e4 (masses and inertias of very different
    // bodies): the pivot test is relative to each column, so these are not "singular".
    let mut rng = Rng(17);
    for (name, p) in test_patterns(&mut rng) {
        let off = p.offsets();
        let scale: Vec<f64> = (0..p.dims.len()).map(|_| 10f64.powf(4.0 * rng.sym())).collect();
        let d = DVector::from_fn(p.n(), |i, _| scale[off.partition_point(|&o| o <= i) - 1]);
        let mut f = BlockSparseLu::new();
        f.analyze(&p.dims, &p.pairs).unwrap();
        let a = matrix(&mut rng, &p, Values::Contact);
        let e = DVector::from_fn(p.n(), |_, _| 10f64.powf(2.0 * rng.sym()));
        let scaled = DMatrix::from_diagonal(&d) * a * DMatrix::from_diagonal(&e);
        check_lu(&mut f, &p, &scaled, &mut rng, &format!("{name}, scaled"));
        let mut g = BlockSparseLdlt::new();
        g.analyze(&p.dims, &p.pairs).unwrap();
        let s = matrix(&mut rng, &p, Values::Symmetric);
        let dm = DMatrix::from_diagonal(&d);
        let scaled = &dm * s * &dm;
        let scaled = (&scaled + scaled.transpose()) * 0.5;
        check_ldlt(&mut g, &p, &scaled, &mut rng, &format!("{name}, scaled"));
    }
}

#[test]
fn singular_matrices_are_rejected() {
    let mut rng = Rng(13);
    for (name, p) in test_patterns(&mut rng).into_iter().skip(2) {
        let n = p.n();
        let off = p.offsets();
        let mut f = BlockSparseLu::new();
        f.analyze(&p.dims, &p.pairs).unwrap();
        let mut g = BlockSparseLdlt::new();
        g.analyze(&p.dims, &p.pairs).unwrap();
        let blk = rng.below(p.dims.len());

        // A zero row and column (exactly singular).
        let mut a = matrix(&mut rng, &p, Values::Contact);
        let k = off[blk] + rng.below(p.dims[blk]);
        a.row_mut(k).fill(0.0);
        a.column_mut(k).fill(0.0);
        assemble_lu(&mut f, &p, &a);
        assert!(matches!(f.factor(), Err(SparseError::Singular { .. })), "{name}: zero row and column");
        let mut s = matrix(&mut rng, &p, Values::Symmetric);
        s.row_mut(k).fill(0.0);
        s.column_mut(k).fill(0.0);
        assemble_ldlt(&mut g, &p, &s, &mut rng);
        assert!(matches!(g.factor(), Err(SparseError::Singular { .. })), "{name}: LDLT zero row and column");

        // Numerically singular: one column of a diagonal block a combination of the others in
        // its block column (the block column has rank one less), in floating point.
        let mut a = matrix(&mut rng, &p, Values::Contact);
        let (c0, c1) = (off[blk], off[blk] + 1);
        let comb = a.column(c0) * 0.7 - a.column(c1) * 1.3;
        a.column_mut(c1 + 1).copy_from(&comb);
        assemble_lu(&mut f, &p, &a);
        assert!(matches!(f.factor(), Err(SparseError::Singular { .. })), "{name}: rank-deficient");
        // Symmetric rank deficiency: S = Bᵀ D B with B singular.
        let mut s = matrix(&mut rng, &p, Values::Symmetric);
        let v =
            DVector::from_fn(n, |i, _| if (off[blk]..off[blk + 1]).contains(&i) { rng.sym() } else { 0.0 });
        let sv = &s * &v;
        let vsv = v.dot(&sv);
        // S − (S v)(S v)ᵀ / (vᵀ S v) annihilates v (rank one less), pattern unchanged.
        s -= &sv * sv.transpose() / vsv;
        s = (&s + s.transpose()) * 0.5;
        assemble_ldlt(&mut g, &p, &s, &mut rng);
        assert!(matches!(g.factor(), Err(SparseError::Singular { .. })), "{name}: LDLT rank-deficient");
    }
}
