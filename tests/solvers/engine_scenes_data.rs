//! The engine scenes of `tests/data/engine_scenes.txt.gz` parse and hold what their README says:
//! sizes, block structure, symmetric positive definite M blocks, the contact-parameter rule
//! `fn0 = k·max(0, −phi)`, valid tree indices and finite values.

use support::engine_scenes::read_scenes;

/// (name, nv, trees, nc, MuJoCo µs) from `tests/data/README.md`.
const TABLE: [(&str, usize, usize, usize, f64); 10] = [
    ("pile50_seed1_t0.3", 300, 50, 95, 54.24),
    ("pile50_seed1_t1.0", 300, 50, 241, 106.2),
    ("pile50_seed1_t3.0", 300, 50, 261, 76.09),
    ("pile100_seed1_t1.0", 600, 100, 493, 401.6),
    ("pile100_seed1_t3.0", 600, 100, 576, 1714.0),
    ("pile200_seed1_t3.0", 1200, 200, 1373, 26912.0),
    ("slide_box_v2.0_t0.001", 6, 1, 4, 1.785),
    ("slide_box_v2.0_t0.01", 6, 1, 4, 0.1396),
    ("stack5_jitter_seed1_t1.0", 30, 5, 29, 4.193),
    ("arm7_pile30_seed1_t1.0", 187, 31, 158, 42.53),
];

#[test]
fn scenes_match_their_description() {
    let scenes = read_scenes();
    assert_eq!(scenes.len(), TABLE.len());
    for (s, &(name, nv, nt, nc, us)) in scenes.iter().zip(&TABLE) {
        assert_eq!((s.name.as_str(), s.nv, s.trees.len(), s.nc()), (name, nv, nt, nc));
        assert!((s.mujoco_us - us).abs() <= 5e-4 * us, "{name}: MuJoCo time {}", s.mujoco_us);
        assert_eq!(s.dt, 1e-3);
        assert!(s.v0.iter().chain(&s.tau).all(|x| x.is_finite()), "{name}: v0, tau finite");
        for (t, (&(_, n), m)) in s.trees.iter().zip(&s.m_blocks).enumerate() {
            let m = nalgebra::DMatrix::from_column_slice(n, n, m);
            assert!((&m - m.transpose()).amax() <= 1e-12 * m.amax(), "{name}: M block {t} symmetric");
            assert!(m.cholesky().is_some(), "{name}: M block {t} positive definite");
        }
        for (i, c) in s.contacts.iter().enumerate() {
            assert!(
                c.tree_a < nt && c.tree_b.is_none_or(|b| b < nt && b != c.tree_a),
                "{name}: contact {i} trees"
            );
            assert_eq!(c.stiffness, 9810.0);
            assert_eq!(c.dissipation, 10.096375546923044);
            assert!(
                (c.fn0 - c.stiffness * (-c.phi).max(0.0)).abs() <= 1e-9 * c.fn0.max(1.0),
                "{name}: fn0 of {i}"
            );
            assert!(c.phi < 0.01 && c.mu > 0.0);
            assert!(c.ja.iter().chain(&c.jb).all(|x| x.is_finite()), "{name}: contact {i} finite");
        }
    }
}

#[test]
fn dense_form_has_the_block_structure() {
    let s = read_scenes().into_iter().find(|s| s.name == "arm7_pile30_seed1_t1.0").unwrap();
    let d = s.dense();
    // The arm's 7 dofs form one dense block; M is zero outside the tree blocks.
    assert_eq!(s.trees[0], (0, 7));
    let mut off_block = 0.0f64;
    for c in 0..s.nv {
        for r in 0..s.nv {
            let tree = |k: usize| s.trees.iter().position(|&(f, n)| k >= f && k < f + n).unwrap();
            if tree(r) != tree(c) {
                off_block = off_block.max(d.m[(r, c)].abs());
            }
        }
    }
    assert_eq!(off_block, 0.0);
    // 20 of the 158 contacts touch the arm's tree (README of the scene generator).
    let arm = s.contacts.iter().filter(|c| c.tree_a == 0 || c.tree_b == Some(0)).count();
    assert_eq!(arm, 20);
    assert_eq!((d.jn.nrows(), d.jt.nrows()), (158, 316));
}
