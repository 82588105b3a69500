//! Block-sparse TAMSI problems for tests and benchmarks: the engine scenes of
//! `tests/data/engine_scenes.txt.gz` and random block problems, each with its packed values
//! (`docs/block_sparse.md` §1) and the equivalent dense matrices.

use contact_solvers::block_sparse::{BlockSparseLayout, BlockSparseSystem};
use nalgebra::{DMatrix, DVector};

use super::engine_scenes::{Scene, SceneContact};

/// A TAMSI problem held in both forms.
pub struct BlockProblem {
    pub name: String,
    pub layout: BlockSparseLayout,
    /// Packed M and J.
    pub m_packed: Vec<f64>,
    pub j_packed: Vec<f64>,
    /// The same data, dense: M nv×nv, Jn nc×nv, Jt 2nc×nv.
    pub m: DMatrix<f64>,
    pub jn: DMatrix<f64>,
    pub jt: DMatrix<f64>,
    pub p_star: DVector<f64>,
    pub v0: DVector<f64>,
    pub fn0: DVector<f64>,
    pub stiffness: DVector<f64>,
    pub dissipation: DVector<f64>,
    pub mu: DVector<f64>,
    pub dt: f64,
}

impl BlockProblem {
    pub fn system(&self) -> BlockSparseSystem<'_> {
        BlockSparseSystem::new(&self.layout, &self.m_packed, &self.j_packed).expect("valid block data")
    }

    pub fn nv(&self) -> usize {
        self.p_star.len()
    }

    pub fn nc(&self) -> usize {
        self.mu.len()
    }

    /// The two-way TAMSI problem on the block data.
    pub fn two_way(&self) -> contact_solvers::tamsi::TamsiProblem<'_> {
        contact_solvers::tamsi::TamsiProblem::two_way_blocks(
            self.system(),
            self.p_star.as_view(),
            self.fn0.as_view(),
            self.stiffness.as_view(),
            self.dissipation.as_view(),
            self.mu.as_view(),
        )
        .expect("valid two-way block problem")
    }

    /// The structure in the C ABI's encoding (`docs/block_sparse.md` §5): tree dofs and two tree
    /// indices per contact (−1: static side).
    pub fn c_structure(&self) -> CStructure {
        let l = &self.layout;
        let tree_dofs = (0..l.num_trees()).map(|t| l.tree_dofs(t) as i32).collect();
        let contact_trees = (0..self.nc())
            .flat_map(|i| {
                let (a, b) = l.contact_trees(i);
                [a as i32, b.map_or(-1, |b| b as i32)]
            })
            .collect();
        CStructure { tree_dofs, contact_trees }
    }
}

/// A block problem's structure as the C ABI takes it.
pub struct CStructure {
    pub tree_dofs: Vec<i32>,
    pub contact_trees: Vec<i32>,
}

impl CStructure {
    /// `cts_block_sparse_data` borrowing these arrays and `p`'s packed values.
    pub fn data(&self, p: &BlockProblem) -> contact_solvers::ffi::block_sparse::cts_block_sparse_data {
        contact_solvers::ffi::block_sparse::cts_block_sparse_data {
            num_trees: self.tree_dofs.len(),
            tree_dofs: self.tree_dofs.as_ptr(),
            M_len: p.m_packed.len(),
            M: p.m_packed.as_ptr(),
            num_contacts: p.nc(),
            contact_trees: self.contact_trees.as_ptr(),
            J_len: p.j_packed.len(),
            J: p.j_packed.as_ptr(),
        }
    }
}

impl BlockProblem {
    /// Builds the dense matrices from the packed values.
    fn with_dense(mut self) -> Self {
        let (m, j) = self.system().to_dense();
        let nc = self.layout.num_contacts();
        self.jn = DMatrix::from_fn(nc, m.ncols(), |i, c| j[(3 * i, c)]);
        self.jt = DMatrix::from_fn(2 * nc, m.ncols(), |r, c| j[(3 * (r / 2) + 1 + r % 2, c)]);
        self.m = m;
        self
    }
}

/// An engine scene as a TAMSI problem with only its touching contacts (phi < 0, MuJoCo's own
/// contact set at margin 0); fn0, k, d as in the file.
pub fn from_scene_touching(s: &Scene) -> BlockProblem {
    let mut s = s.clone();
    s.contacts.retain(|c| c.phi < 0.0);
    BlockProblem { name: format!("{} (phi < 0)", s.name), ..from_scene(&s) }
}

/// An engine scene as a TAMSI problem (all its contacts; fn0, k, d as in the file).
pub fn from_scene(s: &Scene) -> BlockProblem {
    let mut layout = BlockSparseLayout::new();
    let contacts: Vec<(usize, Option<usize>)> = s.contacts.iter().map(|c| (c.tree_a, c.tree_b)).collect();
    layout.set(&s.tree_dofs(), &contacts).expect("scene structure");
    let m_packed: Vec<f64> = s.m_blocks.concat();
    let j_packed: Vec<f64> = s.contacts.iter().flat_map(|c| c.ja.iter().chain(&c.jb).copied()).collect();
    let col = |f: &dyn Fn(&SceneContact) -> f64| DVector::from_iterator(s.nc(), s.contacts.iter().map(f));
    BlockProblem {
        name: s.name.clone(),
        layout,
        m_packed,
        j_packed,
        m: DMatrix::zeros(0, 0),
        jn: DMatrix::zeros(0, 0),
        jt: DMatrix::zeros(0, 0),
        p_star: DVector::from_vec(s.p_star()),
        v0: DVector::from_column_slice(&s.v0),
        fn0: col(&|c| c.fn0),
        stiffness: col(&|c| c.stiffness),
        dissipation: col(&|c| c.dissipation),
        mu: col(&|c| c.mu),
        dt: s.dt,
    }
    .with_dense()
}

/// A deterministic generator (64-bit LCG), uniform in [0, 1).
pub struct Lcg(u64);

impl Lcg {
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407))
    }
    pub fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn range(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.next()
    }
    pub fn index(&mut self, n: usize) -> usize {
        ((self.next() * n as f64) as usize).min(n - 1)
    }
}

/// A random block problem: `ntree` trees of 1–9 dofs (SPD M blocks), `nc` contacts on one tree
/// or two (a few trees left without contact), bodies pressed together (fn0 > 0) and sliding or
/// nearly sticking.
pub fn random(seed: u64, ntree: usize, nc: usize) -> BlockProblem {
    let mut rng = Lcg::new(seed);
    let dofs: Vec<usize> = (0..ntree).map(|_| 1 + rng.index(9)).collect();
    // Trees ntree-2.. get no contact when there are enough trees.
    let touchable = if ntree > 3 { ntree - 2 } else { ntree };
    let contacts: Vec<(usize, Option<usize>)> = (0..nc)
        .map(|_| {
            let a = rng.index(touchable);
            let b = rng.index(touchable);
            (a, (b != a && rng.next() < 0.6).then_some(b))
        })
        .collect();
    let mut layout = BlockSparseLayout::new();
    layout.set(&dofs, &contacts).unwrap();
    let mut m_packed = Vec::new();
    for &n in &dofs {
        let a = DMatrix::from_fn(n, n, |_, _| rng.range(-0.5, 0.5));
        let m = &a * a.transpose() + DMatrix::identity(n, n) * rng.range(0.5, 2.0);
        m_packed.extend_from_slice(m.as_slice());
    }
    let j_packed: Vec<f64> = (0..layout.j_len()).map(|_| rng.range(-1.0, 1.0)).collect();
    let nv = layout.num_velocities();
    let v0 = DVector::from_fn(nv, |_, _| rng.range(-0.05, 0.05));
    let p = BlockProblem {
        name: format!("random seed {seed} ntree {ntree} nc {nc}"),
        layout,
        m_packed,
        j_packed,
        m: DMatrix::zeros(0, 0),
        jn: DMatrix::zeros(0, 0),
        jt: DMatrix::zeros(0, 0),
        p_star: DVector::zeros(nv),
        v0,
        fn0: DVector::from_fn(nc, |_, _| rng.range(1.0, 20.0)),
        stiffness: DVector::from_fn(nc, |_, _| rng.range(1e3, 1e5)),
        dissipation: DVector::from_fn(nc, |_, _| rng.range(0.0, 5.0)),
        mu: DVector::from_fn(nc, |_, _| rng.range(0.2, 0.9)),
        dt: 1e-3,
    }
    .with_dense();
    // p* = M v0 + dt·τ with a random τ.
    let tau = DVector::from_fn(nv, |_, _| rng.range(-10.0, 10.0));
    BlockProblem { p_star: &p.m * &p.v0 + tau * p.dt, ..p }
}
