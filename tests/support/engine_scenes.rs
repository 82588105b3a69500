//! Reader of the MuJoCo engine scenes (`tests/data/engine_scenes.txt.gz`, format `CTS_SCENES 1`,
//! described in `tests/data/README.md`): box piles, a sliding box, a stack and a 7-dof arm in a
//! pile, each one contact step of MuJoCo 4.0.0 in block (per-tree) form, with MuJoCo's own
//! constraint-solve time on that state.
//!
//! Conventions of the file: matrices column-major; a contact's Jacobian block has the rows
//! normal, tangent 1, tangent 2; the normal velocity is positive when the bodies separate;
//! `tree_b = -1` when the other side is static; `p* = M v0 + dt·tau`.

use std::io::Read;

use nalgebra::{DMatrix, DVector};

/// Path of the gzip-compressed scene file inside the repository.
pub const SCENES_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/engine_scenes.txt.gz");

/// One contact: the trees it touches and its 3×n Jacobian blocks (rows normal, t1, t2).
#[derive(Debug, Clone)]
pub struct SceneContact {
    pub tree_a: usize,
    /// `None` when the other side is static (the file's −1).
    pub tree_b: Option<usize>,
    pub mu: f64,
    /// Signed distance, m (< 0: penetration).
    pub phi: f64,
    /// `k·max(0, −phi)`, N.
    pub fn0: f64,
    /// N/m.
    pub stiffness: f64,
    /// s/m.
    pub dissipation: f64,
    /// 3 × ndofs(tree_a), column-major.
    pub ja: Vec<f64>,
    /// 3 × ndofs(tree_b), column-major; empty when `tree_b` is `None`.
    pub jb: Vec<f64>,
}

/// One engine state.
#[derive(Debug, Clone)]
pub struct Scene {
    pub name: String,
    pub source: String,
    /// s.
    pub dt: f64,
    pub nv: usize,
    /// (first dof, number of dofs) per tree; contiguous, in order, covering 0..nv.
    pub trees: Vec<(usize, usize)>,
    /// Each tree's dense diagonal block of M, column-major.
    pub m_blocks: Vec<Vec<f64>>,
    /// Generalized velocities at the start of the step.
    pub v0: Vec<f64>,
    /// `qfrc_applied + qfrc_passive − qfrc_bias`.
    pub tau: Vec<f64>,
    pub contacts: Vec<SceneContact>,
    /// MuJoCo's own constraint solve of this step (warm-started, one thread), µs.
    pub mujoco_us: f64,
    /// Contacts in MuJoCo's own model (margin 0) at this state.
    pub ncon_mujoco: usize,
}

/// The dense form of a scene, in the TAMSI layout.
pub struct DenseScene {
    /// nv×nv.
    pub m: DMatrix<f64>,
    /// nc×nv.
    pub jn: DMatrix<f64>,
    /// 2nc×nv, rows c0t1, c0t2, c1t1, ….
    pub jt: DMatrix<f64>,
    /// `M v0 + dt·tau`.
    pub p_star: DVector<f64>,
}

impl Scene {
    pub fn nc(&self) -> usize {
        self.contacts.len()
    }

    /// Number of dofs of each tree.
    pub fn tree_dofs(&self) -> Vec<usize> {
        self.trees.iter().map(|&(_, n)| n).collect()
    }

    /// `M v0 + dt·tau`, block by block.
    pub fn p_star(&self) -> Vec<f64> {
        let mut p = vec![0.0; self.nv];
        for (&(first, n), m) in self.trees.iter().zip(&self.m_blocks) {
            for c in 0..n {
                for r in 0..n {
                    p[first + r] += m[c * n + r] * self.v0[first + c];
                }
            }
        }
        for (p, &t) in p.iter_mut().zip(&self.tau) {
            *p += self.dt * t;
        }
        p
    }

    /// The scene as dense matrices.
    pub fn dense(&self) -> DenseScene {
        let (nv, nc) = (self.nv, self.nc());
        let mut m = DMatrix::zeros(nv, nv);
        for (&(first, n), b) in self.trees.iter().zip(&self.m_blocks) {
            m.view_mut((first, first), (n, n)).copy_from_slice(b);
        }
        let mut jn = DMatrix::zeros(nc, nv);
        let mut jt = DMatrix::zeros(2 * nc, nv);
        for (i, c) in self.contacts.iter().enumerate() {
            let mut put = |tree: usize, block: &[f64]| {
                let (first, n) = self.trees[tree];
                for col in 0..n {
                    jn[(i, first + col)] = block[3 * col];
                    jt[(2 * i, first + col)] = block[3 * col + 1];
                    jt[(2 * i + 1, first + col)] = block[3 * col + 2];
                }
            };
            put(c.tree_a, &c.ja);
            if let Some(b) = c.tree_b {
                put(b, &c.jb);
            }
        }
        DenseScene { m, jn, jt, p_star: DVector::from_vec(self.p_star()) }
    }
}

/// The generated pile states of `tools/make_engine_scenes.py piles` (48 states, seeds 7–14).
pub const PILES_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/engine_piles.txt.gz");
/// The stress states of `tools/make_engine_scenes.py stress` (a 300-box pile, tilted stacks, a
/// 1:1000 mass-ratio stack).
pub const STRESS_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/engine_stress.txt.gz");

/// Reads every scene of the repository's scene file.
pub fn read_scenes() -> Vec<Scene> {
    let path = std::env::var("CTS_SCENES_FILE").unwrap_or_else(|_| SCENES_PATH.to_string());
    read_scenes_file(&path)
}

/// Reads every scene of a gzip-compressed `CTS_SCENES 1` file.
pub fn read_scenes_file(path: &str) -> Vec<Scene> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .unwrap_or_else(|e| panic!("{path}: gzip: {e}"));
    parse_scenes(&text)
}

/// The scene named `name`.
pub fn scene(name: &str) -> Scene {
    read_scenes().into_iter().find(|s| s.name == name).unwrap_or_else(|| panic!("no scene {name}"))
}

/// Parses a `CTS_SCENES 1` text; panics with the token position on malformed input.
pub fn parse_scenes(text: &str) -> Vec<Scene> {
    let mut t = Tokens { it: text.split_ascii_whitespace(), pos: 0 };
    t.expect("CTS_SCENES");
    t.expect("1");
    let count = t.usize();
    (0..count).map(|_| parse_scene(&mut t)).collect()
}

fn parse_scene(t: &mut Tokens<'_>) -> Scene {
    t.expect("scene");
    let name = t.word().to_string();
    t.expect("source");
    let source = t.word().to_string();
    t.expect("dt");
    let dt = t.f64();
    t.expect("nv");
    let nv = t.usize();
    t.expect("ntrees");
    let nt = t.usize();
    t.expect("nc");
    let nc = t.usize();
    let mut trees = Vec::with_capacity(nt);
    let mut next = 0;
    for _ in 0..nt {
        t.expect("tree");
        let (first, n) = (t.usize(), t.usize());
        assert_eq!(first, next, "{name}: trees must be contiguous and in order");
        next += n;
        trees.push((first, n));
    }
    assert_eq!(next, nv, "{name}: trees must cover 0..nv");
    let m_blocks = trees
        .iter()
        .map(|&(_, n)| {
            t.expect("Mtree");
            t.f64s(n * n)
        })
        .collect();
    t.expect("v0");
    let v0 = t.f64s(nv);
    t.expect("tau");
    let tau = t.f64s(nv);
    let mut contacts = Vec::with_capacity(nc);
    for _ in 0..nc {
        t.expect("contact");
        let tree_a = t.usize();
        let tree_b = t.word().parse::<i64>().expect("tree_b");
        let tree_b = (tree_b >= 0).then_some(tree_b as usize);
        let (mu, phi, fn0, stiffness, dissipation) = (t.f64(), t.f64(), t.f64(), t.f64(), t.f64());
        t.expect("Ja");
        let ja = t.f64s(3 * trees[tree_a].1);
        let jb = match tree_b {
            Some(b) => {
                t.expect("Jb");
                t.f64s(3 * trees[b].1)
            }
            None => Vec::new(),
        };
        contacts.push(SceneContact { tree_a, tree_b, mu, phi, fn0, stiffness, dissipation, ja, jb });
    }
    t.expect("ref");
    t.expect("mujoco_constraint_us");
    let mujoco_us = t.f64();
    t.expect("ncon_mujoco");
    let ncon_mujoco = t.usize();
    t.expect("end");
    Scene { name, source, dt, nv, trees, m_blocks, v0, tau, contacts, mujoco_us, ncon_mujoco }
}

struct Tokens<'a> {
    it: std::str::SplitAsciiWhitespace<'a>,
    pos: usize,
}

impl<'a> Tokens<'a> {
    fn word(&mut self) -> &'a str {
        self.pos += 1;
        self.it.next().unwrap_or_else(|| panic!("scene file ends early (token {})", self.pos))
    }
    fn expect(&mut self, w: &str) {
        let got = self.word();
        assert_eq!(got, w, "scene file token {}", self.pos);
    }
    fn usize(&mut self) -> usize {
        let pos = self.pos + 1;
        self.word().parse().unwrap_or_else(|e| panic!("scene file token {pos}: {e}"))
    }
    fn f64(&mut self) -> f64 {
        let pos = self.pos + 1;
        self.word().parse().unwrap_or_else(|e| panic!("scene file token {pos}: {e}"))
    }
    fn f64s(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.f64()).collect()
    }
}
