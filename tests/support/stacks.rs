//! Deterministic stacked-box contact scenes (test and benchmark support) and the contact LCPs
//! formed from them:
//! * 2-D box towers: boxes of 1 × 0.5 stacked with random horizontal offsets, two corner contacts
//!   on the ground and between neighbours, one friction direction per contact;
//! * 2-D brick walls in running bond, frictionless: each brick rests on two bricks of the row
//!   below (or on the ground), with contacts at both ends of every overlap;
//! * 3-D box stacks: boxes of 1 × 1 × 0.5 with random horizontal offsets, four corner contacts
//!   per interface, two friction directions per contact.
//!
//! Every body falls at about 1 m/s with a small seeded jitter in its velocity, so the ground
//! contacts approach and the contacts between boxes are nearly at rest (a degenerate LCP, as in an
//! engine). [`VelScene::impact_lcp`] returns the impact LCP of Drake's ConstraintSolver
//! (`docs/rigid.md` §6.3, variables fN, fD⁺, fD⁻, λ, size 2nc + 2nr); [`frictionless_lcp`] the
//! frictionless LCP `M = N M⁻¹ Nᵀ`, `q = N v`.

use contact_solvers::rigid::{ConstraintSolver, ConstraintVelProblemData, InertiaSolve, Operator};
use nalgebra::{DMatrix, DVector};

use super::scene::Lcg;

/// Owned velocity-level problem data (no limits, no bilateral constraints, no softening).
pub struct VelScene {
    pub r: Vec<usize>,
    pub mu: DVector<f64>,
    /// Normal rows (nc × nv), friction rows (nr × nv), r rows per contact in contact order.
    pub n: DMatrix<f64>,
    pub f: DMatrix<f64>,
    pub k_n: DVector<f64>,
    pub k_f: DVector<f64>,
    pub gamma_n: DVector<f64>,
    pub v: DVector<f64>,
    pub mv: DVector<f64>,
    pub minv: DMatrix<f64>,
}

impl VelScene {
    pub fn view(&self) -> ConstraintVelProblemData<'_> {
        ConstraintVelProblemData {
            r: &self.r,
            mu: self.mu.as_view(),
            n_mult: Operator::Matrix(self.n.as_view()),
            n_transpose_mult: Operator::TransposeOf(self.n.as_view()),
            k_n: self.k_n.as_view(),
            gamma_n: self.gamma_n.as_view(),
            f_mult: Operator::Matrix(self.f.as_view()),
            f_transpose_mult: Operator::TransposeOf(self.f.as_view()),
            k_f: self.k_f.as_view(),
            mv: self.mv.as_view(),
            solve_inertia: InertiaSolve::Inverse(self.minv.as_view()),
            ..ConstraintVelProblemData::default()
        }
    }

    /// Drake's impact LCP of this scene (`docs/rigid.md` §6.3), n = 2nc + 2nr.
    pub fn impact_lcp(&self) -> (DMatrix<f64>, DVector<f64>) {
        let mut cs = ConstraintSolver::new();
        // The solve's own outcome does not matter here: only the LCP it formed is read.
        let _ = cs.solve_impact_problem(&self.view());
        let n = cs.lcp_size();
        assert_eq!(n, 2 * self.n.nrows() + 2 * self.f.nrows(), "the scene has an impact LCP");
        (cs.lcp_matrix().into_owned(), DVector::from_column_slice(cs.lcp_vector()))
    }

    /// The frictionless contact LCP `M = N M⁻¹ Nᵀ`, `q = N v` (n = nc).
    pub fn frictionless_lcp(&self) -> (DMatrix<f64>, DVector<f64>) {
        (&self.n * &self.minv * self.n.transpose(), &self.n * &self.v)
    }
}

/// A contact between `upper` and `lower` (None: the ground) at world point `p`, with the normal
/// pointing into `upper` and the given friction directions (unit, orthogonal to the normal).
struct Contact<const D: usize> {
    upper: usize,
    lower: Option<usize>,
    p: [f64; D],
    normal: [f64; D],
    tangents: Vec<[f64; D]>,
}

/// A rigid body: centre, mass, and principal moments (world-aligned; 1 in 2-D, 3 in 3-D).
struct Body<const D: usize> {
    c: [f64; D],
    mass: f64,
    inertia: Vec<f64>,
}

/// Jacobian row of the relative velocity of `upper` w.r.t. `lower` at `p` along `d`.
/// 2-D dof (vx, vy, ω); 3-D dof (v, ω), ω in world coordinates.
fn row<const D: usize>(bodies: &[Body<D>], c: &Contact<D>, d: [f64; D]) -> Vec<(usize, f64)> {
    let dof = if D == 2 { 3 } else { 6 };
    let mut out = Vec::new();
    for (body, sign) in [(Some(c.upper), 1.0), (c.lower, -1.0)] {
        let Some(b) = body else { continue };
        let r: Vec<f64> = (0..D).map(|k| c.p[k] - bodies[b].c[k]).collect();
        for (k, dk) in d.iter().enumerate() {
            out.push((dof * b + k, sign * dk));
        }
        if D == 2 {
            // v(p) = v + ω × r, ω × r = ω (−r_y, r_x).
            out.push((dof * b + 2, sign * (-d[0] * r[1] + d[1] * r[0])));
        } else {
            // d · (ω × r) = ω · (r × d).
            let rxd = [r[1] * d[2] - r[2] * d[1], r[2] * d[0] - r[0] * d[2], r[0] * d[1] - r[1] * d[0]];
            for (k, a) in rxd.iter().enumerate() {
                out.push((dof * b + 3 + k, sign * a));
            }
        }
    }
    out
}

fn assemble<const D: usize>(bodies: &[Body<D>], contacts: &[Contact<D>], mu: f64, g: &mut Lcg) -> VelScene {
    let dof = if D == 2 { 3 } else { 6 };
    let nv = dof * bodies.len();
    let nc = contacts.len();
    let r: Vec<usize> = contacts.iter().map(|c| c.tangents.len()).collect();
    let nr: usize = r.iter().sum();
    let mut n = DMatrix::zeros(nc, nv);
    let mut f = DMatrix::zeros(nr, nv);
    let mut k = 0;
    for (i, c) in contacts.iter().enumerate() {
        for (j, a) in row(bodies, c, c.normal) {
            n[(i, j)] += a;
        }
        for t in &c.tangents {
            for (j, a) in row(bodies, c, *t) {
                f[(k, j)] += a;
            }
            k += 1;
        }
    }
    let mut minv = DMatrix::zeros(nv, nv);
    let mut m = DMatrix::zeros(nv, nv);
    for (b, body) in bodies.iter().enumerate() {
        for k in 0..D {
            m[(dof * b + k, dof * b + k)] = body.mass;
            minv[(dof * b + k, dof * b + k)] = 1.0 / body.mass;
        }
        for (k, &i) in body.inertia.iter().enumerate() {
            m[(dof * b + D + k, dof * b + D + k)] = i;
            minv[(dof * b + D + k, dof * b + D + k)] = 1.0 / i;
        }
    }
    // Falling at about 1 m/s along the last axis, with a small jitter in every component.
    let v = DVector::from_fn(nv, |i, _| {
        let vertical = i % dof == D - 1;
        g.range(-0.05, 0.05) + if vertical { -1.0 } else { 0.0 }
    });
    VelScene {
        r,
        mu: DVector::from_element(nc, mu),
        n,
        f,
        k_n: DVector::zeros(nc),
        k_f: DVector::zeros(nr),
        gamma_n: DVector::zeros(nc),
        mv: &m * &v,
        v,
        minv,
    }
}

/// Contacts at both ends of the horizontal overlap of `[a0, a1]` and `[b0, b1]` at height `y`.
fn overlap_2d(
    upper: usize,
    lower: Option<usize>,
    a: (f64, f64),
    b: (f64, f64),
    y: f64,
    out: &mut Vec<Contact<2>>,
) {
    let (lo, hi) = (a.0.max(b.0), a.1.min(b.1));
    assert!(hi > lo, "the boxes overlap");
    for x in [lo, hi] {
        out.push(Contact { upper, lower, p: [x, y], normal: [0.0, 1.0], tangents: vec![[1.0, 0.0]] });
    }
}

/// A 2-D tower of `boxes` boxes (1 × 0.5, masses in [1, 3]), each shifted by up to ±0.2 from the
/// one below; 2 contacts per box, impact LCP size 8 · boxes. μ = 0.5.
pub fn box_tower_2d(boxes: usize, seed: u64) -> VelScene {
    let (w, h) = (1.0, 0.5);
    let mut g = Lcg::new(seed);
    let mut bodies = Vec::new();
    let mut contacts = Vec::new();
    let mut x = 0.0;
    for b in 0..boxes {
        let x_prev = x;
        if b > 0 {
            x += g.range(-0.2, 0.2);
        }
        let mass = g.range(1.0, 3.0);
        bodies.push(Body {
            c: [x, h * (b as f64 + 0.5)],
            mass,
            inertia: vec![mass * (w * w + h * h) / 12.0],
        });
        let me = (x - w / 2.0, x + w / 2.0);
        let below = if b == 0 { (x - w, x + w) } else { (x_prev - w / 2.0, x_prev + w / 2.0) };
        overlap_2d(b, b.checked_sub(1), me, below, h * b as f64, &mut contacts);
    }
    assemble(&bodies, &contacts, 0.5, &mut g)
}

/// A 2-D brick wall of `rows` rows (bricks 2 × 0.5, masses in [1, 3]) in running bond: even rows
/// have `per_row` bricks, odd rows `per_row − 1` shifted by half a brick, so every brick above the
/// first row rests on one or two bricks below. Frictionless, `2 per_row + 4 (rows − 1)(per_row − 1)`
/// contacts (5 rows of 8: 128); see [`VelScene::frictionless_lcp`].
pub fn brick_wall_2d(rows: usize, per_row: usize, seed: u64) -> VelScene {
    let (w, h) = (2.0, 0.5);
    let mut g = Lcg::new(seed);
    let mut bodies = Vec::new();
    let mut contacts = Vec::new();
    let mut below: Vec<(usize, (f64, f64))> = Vec::new();
    for row in 0..rows {
        let (count, x0) = if row % 2 == 0 { (per_row, 0.0) } else { (per_row - 1, w / 2.0) };
        let mut this_row = Vec::new();
        for i in 0..count {
            let x = x0 + i as f64 * w;
            let mass = g.range(1.0, 3.0);
            let id = bodies.len();
            bodies.push(Body {
                c: [x + w / 2.0, h * (row as f64 + 0.5)],
                mass,
                inertia: vec![mass * (w * w + h * h) / 12.0],
            });
            let me = (x, x + w);
            if row == 0 {
                overlap_2d(id, None, me, me, 0.0, &mut contacts);
            }
            for &(b, span) in &below {
                if span.1.min(me.1) > span.0.max(me.0) {
                    overlap_2d(id, Some(b), me, span, h * row as f64, &mut contacts);
                }
            }
            this_row.push((id, me));
        }
        below = this_row;
    }
    for c in &mut contacts {
        c.tangents.clear();
    }
    assemble(&bodies, &contacts, 0.0, &mut g)
}

/// A 3-D stack of `boxes` boxes (1 × 1 × 0.5, masses in [1, 3]), each shifted horizontally by up
/// to ±0.15 in x and y from the one below; 4 contacts per box at the corners of the overlap, two
/// friction directions (x, y) each: impact LCP size 24 · boxes. μ = 0.5.
pub fn box_stack_3d(boxes: usize, seed: u64) -> VelScene {
    let (w, h) = (1.0, 0.5);
    let mut g = Lcg::new(seed);
    let mut bodies = Vec::new();
    let mut contacts = Vec::new();
    let (mut x, mut y) = (0.0, 0.0);
    for b in 0..boxes {
        let (xp, yp) = (x, y);
        if b > 0 {
            x += g.range(-0.15, 0.15);
            y += g.range(-0.15, 0.15);
        }
        let mass = g.range(1.0, 3.0);
        let (ix, iz) = (mass * (w * w + h * h) / 12.0, mass * (w * w + w * w) / 12.0);
        bodies.push(Body { c: [x, y, h * (b as f64 + 0.5)], mass, inertia: vec![ix, ix, iz] });
        let (bx, by) = if b == 0 {
            ((x - w, x + w), (y - w, y + w))
        } else {
            ((xp - w / 2.0, xp + w / 2.0), (yp - w / 2.0, yp + w / 2.0))
        };
        let (lx, hx) = ((x - w / 2.0).max(bx.0), (x + w / 2.0).min(bx.1));
        let (ly, hy) = ((y - w / 2.0).max(by.0), (y + w / 2.0).min(by.1));
        for (px, py) in [(lx, ly), (hx, ly), (lx, hy), (hx, hy)] {
            contacts.push(Contact {
                upper: b,
                lower: b.checked_sub(1),
                p: [px, py, h * b as f64],
                normal: [0.0, 0.0, 1.0],
                tangents: vec![[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            });
        }
    }
    assemble(&bodies, &contacts, 0.5, &mut g)
}
