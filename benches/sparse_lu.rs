//! Block-sparse LU / LDLᵀ against the dense kernels on the Newton-matrix patterns of the engine
//! scenes (`tests/data/engine_scenes.txt.gz`).
//!
//! Each scene's trees are the blocks; every contact with two trees couples them; islands are the
//! connected components. The matrix of an island is `M + Σ_c J_cᵀ W_c J_c` with the scene's M
//! blocks and contact Jacobian blocks and a 3×3 weight `W_c = dt·k·(I + 0.2·R_c)` (R_c fixed
//! pseudo-random, unsymmetric for LU, symmetrized for LDLᵀ): the structure and magnitudes of a
//! TAMSI Newton matrix.
//!
//! Groups:
//! * `largest_island/{sparse_lu,dense_lu,sparse_ldlt,dense_ldlt}/{factor,solve}`: the largest
//!   island of `pile50_seed1_t1.0`, `pile100_seed1_t3.0`, `pile200_seed1_t3.0`, and
//!   `largest_island/faer_sparse_lu/factor`: faer's own sparse LU (numeric part) on the same
//!   matrix, the alternative this module was measured against;
//! * `threshold/{sparse_lu,dense_lu,sparse_ldlt,dense_ldlt}/nv<n>`: assemble (from dense
//!   blocks) + factor + one solve, for islands of every size found in the scenes, to choose the
//!   island size from which the sparse factorization pays off;
//! * `analyze/{new,cached}`: a fresh symbolic analysis, and `analyze` on a pattern found in the
//!   cache (islands alternating).
//!
//! Sizes and analysis figures are printed to stderr once.

use std::collections::BTreeMap;
use std::time::Duration;

use contact_solvers::linalg::{BlockSparseLdlt, BlockSparseLu, Ldlt, PartialPivLu};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

use support::engine_scenes;

/// One island's matrix, block by block.
struct Island {
    label: String,
    dims: Vec<usize>,
    /// One pair per two-tree contact (duplicates included, as a caller passes them).
    pairs: Vec<(usize, usize)>,
    /// Block (a, b) → its values, column-major `dims[a] × dims[b]`; unsymmetric and
    /// symmetrized versions.
    blocks: BTreeMap<(usize, usize), Vec<f64>>,
    blocks_sym: BTreeMap<(usize, usize), Vec<f64>>,
}

impl Island {
    fn n(&self) -> usize {
        self.dims.iter().sum()
    }

    fn assemble_sparse_lu(&self, f: &mut BlockSparseLu) {
        f.clear_values();
        for (&(a, b), v) in &self.blocks {
            let mut view = f.block_mut(a, b).unwrap();
            for (x, &y) in view.iter_mut().zip(v) {
                *x += y;
            }
        }
    }

    fn assemble_sparse_ldlt(&self, f: &mut BlockSparseLdlt) {
        f.clear_values();
        for (&(a, b), v) in self.blocks_sym.iter().filter(|((a, b), _)| a >= b) {
            let mut view = f.block_mut(a, b).unwrap();
            for (x, &y) in view.iter_mut().zip(v) {
                *x += y;
            }
        }
    }

    /// Column-major `n×n` assembly into `dst` (zeroed first).
    fn assemble_dense(&self, dst: &mut [f64], sym: bool) {
        let n = self.n();
        let mut off = vec![0];
        for &d in &self.dims {
            off.push(off.last().unwrap() + d);
        }
        dst.fill(0.0);
        let blocks = if sym { &self.blocks_sym } else { &self.blocks };
        for (&(a, b), v) in blocks {
            let (da, db) = (self.dims[a], self.dims[b]);
            for j in 0..db {
                for i in 0..da {
                    dst[off[a] + i + (off[b] + j) * n] += v[i + j * da];
                }
            }
        }
    }
}

fn find(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

/// The islands (with at least one contact) of a scene, largest first.
fn islands(scene: &engine_scenes::Scene) -> Vec<Island> {
    let nt = scene.trees.len();
    let mut parent: Vec<usize> = (0..nt).collect();
    let mut touched = vec![false; nt];
    for c in &scene.contacts {
        touched[c.tree_a] = true;
        if let Some(b) = c.tree_b {
            touched[b] = true;
            let (x, y) = (find(&mut parent, c.tree_a), find(&mut parent, b));
            parent[x] = y;
        }
    }
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    };
    let mut out = Vec::new();
    for root in 0..nt {
        if !touched[root] || find(&mut parent, root) != root {
            continue;
        }
        let trees: Vec<usize> = (0..nt).filter(|&t| touched[t] && find(&mut parent, t) == root).collect();
        let mut local = vec![usize::MAX; nt];
        for (k, &t) in trees.iter().enumerate() {
            local[t] = k;
        }
        let dims: Vec<usize> = trees.iter().map(|&t| scene.trees[t].1).collect();
        let mut blocks: BTreeMap<(usize, usize), Vec<f64>> = BTreeMap::new();
        let mut blocks_sym: BTreeMap<(usize, usize), Vec<f64>> = BTreeMap::new();
        for (k, &t) in trees.iter().enumerate() {
            blocks.insert((k, k), scene.m_blocks[t].clone());
            blocks_sym.insert((k, k), scene.m_blocks[t].clone());
        }
        let mut pairs = Vec::new();
        for c in scene.contacts.iter().filter(|c| local[c.tree_a] != usize::MAX) {
            let scale = scene.dt * c.stiffness;
            let w: Vec<f64> =
                (0..9).map(|i| scale * (if i % 4 == 0 { 1.0 } else { 0.0 } + 0.2 * rnd())).collect();
            let w_sym: Vec<f64> = (0..9).map(|i| 0.5 * (w[i] + w[(i % 3) * 3 + i / 3])).collect();
            let mut parts = vec![(local[c.tree_a], &c.ja)];
            if let Some(b) = c.tree_b {
                parts.push((local[b], &c.jb));
                pairs.push((local[c.tree_a], local[b]));
            }
            for &(ta, ja) in &parts {
                for &(tb, jb) in &parts {
                    let (da, db) = (dims[ta], dims[tb]);
                    for (map, w) in [(&mut blocks, &w), (&mut blocks_sym, &w_sym)] {
                        let blk = map.entry((ta, tb)).or_insert_with(|| vec![0.0; da * db]);
                        // J_aᵀ W J_b, J column-major 3×d.
                        for j in 0..db {
                            for i in 0..da {
                                let mut s = 0.0;
                                for p in 0..3 {
                                    for q in 0..3 {
                                        s += ja[3 * i + p] * w[p + 3 * q] * jb[3 * j + q];
                                    }
                                }
                                blk[i + j * da] += s;
                            }
                        }
                    }
                }
            }
        }
        out.push(Island { label: String::new(), dims, pairs, blocks, blocks_sym });
    }
    out.sort_by_key(|i| std::cmp::Reverse(i.n()));
    for isl in &mut out {
        isl.label = format!("{}_nv{}", scene.name, isl.n());
    }
    out
}

/// Total time of `iters` runs of `run`, each after an untimed `setup` (the factorizations work
/// in place, so every run needs freshly assembled values).
fn timed<F>(iters: u64, f: &mut F, mut setup: impl FnMut(&mut F), mut run: impl FnMut(&mut F)) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        setup(f);
        let start = std::time::Instant::now();
        run(std::hint::black_box(&mut *f));
        total += start.elapsed();
    }
    total
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
}

fn largest_islands(c: &mut Criterion) {
    let scenes = engine_scenes::read_scenes();
    let mut group = c.benchmark_group("largest_island");
    for name in ["pile50_seed1_t1.0", "pile100_seed1_t3.0", "pile200_seed1_t3.0"] {
        let scene = scenes.iter().find(|s| s.name == name).unwrap();
        let all = islands(scene);
        let isl = &all[0];
        let n = isl.n();
        let mut lu = BlockSparseLu::new();
        lu.analyze(&isl.dims, &isl.pairs).unwrap();
        let mut ldlt = BlockSparseLdlt::new();
        ldlt.analyze(&isl.dims, &isl.pairs).unwrap();
        let st = lu.stats().unwrap();
        let st_ldlt = ldlt.stats().unwrap();
        eprintln!(
            "{name}: nv {}, {} islands, largest island {} dofs ({} trees, {} distinct pairs): LU {} supernodes \
             (widest {}), {} factor values, {:.2} Mflop; LDLT {:.2} Mflop",
            scene.nv,
            all.len(),
            n,
            st.blocks,
            st.pairs,
            st.supernodes,
            st.max_supernode,
            st.factor_values,
            st.flops * 1e-6,
            st_ldlt.flops * 1e-6
        );
        let rhs: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
        let mut x = rhs.clone();

        isl.assemble_sparse_lu(&mut lu);
        group.bench_function(BenchmarkId::new("sparse_lu/factor", &isl.label), |b| {
            b.iter_custom(|iters| {
                timed(iters, &mut lu, |f| isl.assemble_sparse_lu(f), |f| f.factor().unwrap())
            })
        });
        isl.assemble_sparse_lu(&mut lu);
        lu.factor().unwrap();
        group.bench_function(BenchmarkId::new("sparse_lu/solve", &isl.label), |b| {
            b.iter(|| {
                x.copy_from_slice(&rhs);
                lu.solve_in_place(&mut x).unwrap()
            })
        });

        group.bench_function(BenchmarkId::new("sparse_ldlt/factor", &isl.label), |b| {
            b.iter_custom(|iters| {
                timed(iters, &mut ldlt, |f| isl.assemble_sparse_ldlt(f), |f| f.factor().unwrap())
            })
        });
        isl.assemble_sparse_ldlt(&mut ldlt);
        ldlt.factor().unwrap();
        group.bench_function(BenchmarkId::new("sparse_ldlt/solve", &isl.label), |b| {
            b.iter(|| {
                x.copy_from_slice(&rhs);
                ldlt.solve_in_place(&mut x).unwrap()
            })
        });

        let mut dense_a = vec![0.0; n * n];
        isl.assemble_dense(&mut dense_a, false);
        let mut dlu = PartialPivLu::with_capacity(n);
        let mut tmp = vec![0.0; n];
        group.bench_function(BenchmarkId::new("dense_lu/factor", &isl.label), |b| {
            b.iter_custom(|iters| {
                timed(iters, &mut dlu, |f| f.storage_mut(n).copy_from_slice(&dense_a), |f| f.factor())
            })
        });
        dlu.storage_mut(n).copy_from_slice(&dense_a);
        dlu.factor();
        group.bench_function(BenchmarkId::new("dense_lu/solve", &isl.label), |b| {
            b.iter(|| {
                x.copy_from_slice(&rhs);
                dlu.solve_in_place(&mut x, &mut tmp)
            })
        });

        // faer's own sparse LU (COLAMD ordering, supernodal with dynamic fill) on the same
        // matrix: its symbolic analysis once, then numeric factorizations.
        {
            use faer::dyn_stack::{MemBuffer, MemStack};
            use faer::sparse::linalg::lu::{LuSymbolicParams, NumericLu, factorize_symbolic_lu};
            use faer::sparse::{SparseColMat, Triplet};
            let trip: Vec<_> = (0..n)
                .flat_map(|j| (0..n).map(move |i| (i, j)))
                .filter(|&(i, j)| dense_a[i + j * n] != 0.0)
                .map(|(i, j)| Triplet::new(i, j, dense_a[i + j * n]))
                .collect();
            let a = SparseColMat::<usize, f64>::try_new_from_triplets(n, n, &trip).unwrap();
            let symbolic = factorize_symbolic_lu(a.symbolic(), LuSymbolicParams::default()).unwrap();
            let mut numeric = NumericLu::<usize, f64>::new();
            let mut mem = MemBuffer::new(
                symbolic.factorize_numeric_lu_scratch::<f64>(faer::Par::Seq, faer::Spec::default()),
            );
            group.bench_function(BenchmarkId::new("faer_sparse_lu/factor", &isl.label), |b| {
                b.iter(|| {
                    symbolic
                        .factorize_numeric_lu(
                            &mut numeric,
                            a.as_ref(),
                            faer::Par::Seq,
                            MemStack::new(&mut mem),
                            faer::Spec::default(),
                        )
                        .map(|_| ())
                        .unwrap()
                })
            });
        }

        isl.assemble_dense(&mut dense_a, true);
        let mut dldlt = Ldlt::with_capacity(n);
        group.bench_function(BenchmarkId::new("dense_ldlt/factor", &isl.label), |b| {
            b.iter_custom(|iters| {
                timed(
                    iters,
                    &mut dldlt,
                    |f| f.storage_mut(n).copy_from_slice(&dense_a),
                    |f| f.factor().unwrap(),
                )
            })
        });
    }
    group.finish();
}

fn threshold(c: &mut Criterion) {
    let scenes = engine_scenes::read_scenes();
    // One island of every size with at least two trees, up to the 600-dof piles.
    let mut by_size: BTreeMap<usize, Island> = BTreeMap::new();
    for s in &scenes {
        for isl in islands(s) {
            if isl.dims.len() >= 2 && isl.n() <= 600 {
                by_size.entry(isl.n()).or_insert(isl);
            }
        }
    }
    let mut group = c.benchmark_group("threshold");
    for (&n, isl) in &by_size {
        let rhs: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
        let mut x = rhs.clone();
        let mut lu = BlockSparseLu::new();
        lu.analyze(&isl.dims, &isl.pairs).unwrap();
        group.bench_function(BenchmarkId::new("sparse_lu", &isl.label), |b| {
            b.iter(|| {
                isl.assemble_sparse_lu(&mut lu);
                lu.factor().unwrap();
                x.copy_from_slice(&rhs);
                lu.solve_in_place(&mut x).unwrap()
            })
        });
        let mut dlu = PartialPivLu::with_capacity(n);
        let mut tmp = vec![0.0; n];
        group.bench_function(BenchmarkId::new("dense_lu", &isl.label), |b| {
            b.iter(|| {
                isl.assemble_dense(dlu.storage_mut(n), false);
                dlu.factor();
                x.copy_from_slice(&rhs);
                dlu.solve_in_place(&mut x, &mut tmp)
            })
        });
        let mut ldlt = BlockSparseLdlt::new();
        ldlt.analyze(&isl.dims, &isl.pairs).unwrap();
        group.bench_function(BenchmarkId::new("sparse_ldlt", &isl.label), |b| {
            b.iter(|| {
                isl.assemble_sparse_ldlt(&mut ldlt);
                ldlt.factor().unwrap();
                x.copy_from_slice(&rhs);
                ldlt.solve_in_place(&mut x).unwrap()
            })
        });
        let mut dldlt = Ldlt::with_capacity(n);
        group.bench_function(BenchmarkId::new("dense_ldlt", &isl.label), |b| {
            b.iter(|| {
                isl.assemble_dense(dldlt.storage_mut(n), true);
                dldlt.factor().unwrap();
                x.copy_from_slice(&rhs);
                dldlt.solve_in_place(&mut x)
            })
        });
    }
    group.finish();
}

fn analyze(c: &mut Criterion) {
    let scenes = engine_scenes::read_scenes();
    let mut group = c.benchmark_group("analyze");
    for name in ["pile50_seed1_t1.0", "pile100_seed1_t3.0", "pile200_seed1_t3.0"] {
        let scene = scenes.iter().find(|s| s.name == name).unwrap();
        let all = islands(scene);
        let (big, other) = (&all[0], all.get(1).unwrap_or(&all[0]));
        group.bench_function(BenchmarkId::new("new", &big.label), |b| {
            b.iter(|| {
                let mut lu = BlockSparseLu::new();
                lu.analyze(&big.dims, &big.pairs).unwrap()
            })
        });
        // Two islands alternating on one object: every call after the first two is a hit.
        let mut lu = BlockSparseLu::new();
        group.bench_function(BenchmarkId::new("cached", &big.label), |b| {
            b.iter(|| {
                lu.analyze(&other.dims, &other.pairs).unwrap();
                lu.analyze(&big.dims, &big.pairs).unwrap()
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = config();
    targets = largest_islands, threshold, analyze
}
criterion_main!(benches);
