//! The block-sparse LU and LDLᵀ allocate nothing once grown: a counting global allocator
//! watches `analyze` of a pattern already analysed (the current one and one from the cache),
//! `clear_values`, assembly through `block_mut`, `factor` (with row and symmetric exchanges that
//! differ from one factorization to the next) and `solve_in_place`, on the largest islands of
//! the engine piles (supernodes narrow and wide, the latter factored by faer's blocked LU).

use crate::counting_alloc::allocations_during;
use contact_solvers::linalg::{BlockSparseLdlt, BlockSparseLu, Reuse};

/// Block sizes and pairs (one per two-tree contact) of a scene's largest island.
fn largest_island(name: &str) -> (Vec<usize>, Vec<(usize, usize)>) {
    let scene = support::engine_scenes::scene(name);
    let nt = scene.trees.len();
    let mut parent: Vec<usize> = (0..nt).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
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
    (trees.iter().map(|&t| scene.trees[t].1).collect(), pairs)
}

/// Values that need exchanges: each diagonal block is `10·C + small` with C a cyclic shift by
/// `shift` (zero diagonal for LU; for LDLᵀ a zero first diagonal entry), weak coupling.
fn block_value(sym: bool, shift: usize, d: usize, i: usize, j: usize, diag: bool, seed: usize) -> f64 {
    let small = 1e-3 * (((i * 31 + j * 17 + seed * 7) % 13) as f64 - 6.0);
    if !diag {
        return small;
    }
    if sym {
        if i == j {
            if i == 0 { 0.0 } else { 10.0 + i as f64 }
        } else {
            1e-3 * (((i + j) * 7 % 5) as f64 - 2.0)
        }
    } else if j == (i + shift) % d {
        10.0
    } else if i == j {
        0.0
    } else {
        small
    }
}

fn assemble_lu(f: &mut BlockSparseLu, dims: &[usize], pairs: &[(usize, usize)], shift: usize) {
    f.clear_values();
    for (b, &d) in dims.iter().enumerate() {
        let mut v = f.block_mut(b, b).unwrap();
        for j in 0..d {
            for i in 0..d {
                v[(i, j)] += block_value(false, shift, d, i, j, true, b);
            }
        }
    }
    for &(a, b) in pairs {
        for (x, y) in [(a, b), (b, a)] {
            let mut v = f.block_mut(x, y).unwrap();
            let (r, c) = v.shape();
            for j in 0..c {
                for i in 0..r {
                    v[(i, j)] += block_value(false, shift, 0, i, j, false, x + y);
                }
            }
        }
    }
}

fn assemble_ldlt(f: &mut BlockSparseLdlt, dims: &[usize], pairs: &[(usize, usize)]) {
    f.clear_values();
    for (b, &d) in dims.iter().enumerate() {
        let mut v = f.block_mut(b, b).unwrap();
        for j in 0..d {
            for i in j..d {
                v[(i, j)] += block_value(true, 0, d, i, j, true, b);
            }
        }
    }
    for &(a, b) in pairs {
        let mut v = f.block_mut(a, b).unwrap();
        let (r, c) = v.shape();
        for j in 0..c {
            for i in 0..r {
                v[(i, j)] += 1e-3 * block_value(true, 0, 0, i, j, false, a + b);
            }
        }
    }
}

#[test]
fn factor_and_solve_do_not_allocate_once_grown() {
    // The counter works.
    assert!(allocations_during(|| drop(vec![1u8; 16])) > 0);

    let islands: Vec<_> =
        ["pile50_seed1_t1.0", "pile100_seed1_t3.0", "pile200_seed1_t3.0"].map(largest_island).into();
    let mut lu = BlockSparseLu::new();
    let mut ldlt = BlockSparseLdlt::new();
    // Grow both objects to every pattern (the cache keeps all three).
    for (dims, pairs) in &islands {
        let n: usize = dims.iter().sum();
        let mut x = vec![1.0; n];
        lu.analyze(dims, pairs).unwrap();
        assemble_lu(&mut lu, dims, pairs, 1);
        lu.factor().unwrap();
        lu.solve_in_place(&mut x).unwrap();
        ldlt.analyze(dims, pairs).unwrap();
        assemble_ldlt(&mut ldlt, dims, pairs);
        ldlt.factor().unwrap();
        ldlt.solve_in_place(&mut x).unwrap();
    }
    assert!(lu.stats().unwrap().max_supernode >= contact_solvers::linalg::BLOCKED_MIN_DIM);

    for (k, (dims, pairs)) in islands.iter().enumerate() {
        let n: usize = dims.iter().sum();
        let mut x: Vec<f64> = (0..n).map(|i| (i as f64).sin()).collect();
        let mut reuse = Vec::with_capacity(3);
        let count = allocations_during(|| {
            reuse.push(lu.analyze(dims, pairs).unwrap());
            reuse.push(lu.analyze(dims, pairs).unwrap());
            // Different exchanges in each factorization (cyclic shifts by 1, 2, 3).
            for shift in 1..4 {
                assemble_lu(&mut lu, dims, pairs, shift);
                lu.factor().unwrap();
                for _ in 0..3 {
                    lu.solve_in_place(&mut x).unwrap();
                }
            }
            reuse.push(ldlt.analyze(dims, pairs).unwrap());
            assemble_ldlt(&mut ldlt, dims, pairs);
            ldlt.factor().unwrap();
            for _ in 0..3 {
                ldlt.solve_in_place(&mut x).unwrap();
            }
        });
        assert_eq!(count, 0, "island {k}: {count} allocations");
        assert_eq!(reuse, [Reuse::Cached, Reuse::Unchanged, Reuse::Cached], "island {k}");
        assert!(x.iter().all(|v| v.is_finite()));
    }
}
