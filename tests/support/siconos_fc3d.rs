//! Siconos' 3-D frictional-contact test problems (`tests/data/siconos/friction_contact/*.dat.gz`)
//! read and mapped onto the interior point's problem of `docs/ipm.md` §1.2 with `h = 1`, and
//! Siconos' natural-map error recomputed from a solution. Shared by `tests/solvers/ipm_siconos.rs`
//! (accuracy) and `examples/siconos_fc3d_times.rs` (speed beside Siconos' own solvers,
//! `docs/performance.md` §4).
//!
//! * Global problems `M v = f + H r`, `u = Hᵀ v + w` (`GFC3D_*`): `J = Hᵀ`, `τ = f`, `v0 = 0`,
//!   gap `φ_i = w_n,i`, tangential offset `w_t,i`. Exact mapping.
//! * Local problems `u = W r + q` (`FC3D_*`, `Rover*`, `NESpheres*`, `Capsules*`, `Confeti*`,
//!   `BoxesStack*`, `OneObject*`, `KaplasTower*`, `RockPile*`, `GFC3D_TwoRods1-condensed`):
//!   `W = W_s + W_a` (symmetric and antisymmetric parts), `W_s = V Λ Vᵀ` (rank-revealing), `J = A =
//!   V (σΛ)^½`, `M = (I + K)⁻¹` with `K = σ (σΛ)^-½ Vᵀ W_a V (σΛ)^-½` antisymmetric, `v0 = τ = 0`,
//!   `φ_i = q_n,i`, offset `q_t,i`, impulses scaled by σ (see [`load_with`]). Exact whenever `W_s`
//!   is positive semi-definite and `W_a` lives in its range, which holds for every file mapped
//!   here; the error is measured with the file's own `W` anyway.
//!
//! Both are Coulomb friction with the velocity-level Signorini condition, which is the κ → 0 limit
//! of the SOC model (§1.3). The accuracy measure is Siconos' natural-map residual
//! `‖r − Π_K(r − (u + μ|u_t| e_n))‖₂`, relative to `‖q‖₂` (`max(‖w‖₂, ‖f‖₂)` for global problems,
//! 1 if zero), re-implemented here from its definition ([`natural_map_error`]).
//! Not mapped: 2-D problems (`fc2d*`, `gfc2d*`, `FrictionContactProblem*`, `FC2D_*`),
//! CSparse-stored files, `ACinputs.dat` (not a friction-contact problem) and the FCLIB `.hdf5`
//! files (no HDF5 reader in the project).

use contact_solvers::ipm::{ContactModel, IpmData, IpmProblem};
use nalgebra::{DMatrix, DVector, SymmetricEigen};

/// Where the files are (`tests/data/siconos/friction_contact`).
pub const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/siconos/friction_contact/");

/// The text of Siconos file `name` (stored gzip-compressed as `name.gz`). Panics when it is
/// missing: the data is part of the test.
fn read_text(name: &str) -> String {
    use std::io::Read;
    let path = format!("{DIR}{name}.gz");
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut text = String::new();
    flate2::read::GzDecoder::new(file).read_to_string(&mut text).unwrap_or_else(|e| panic!("{path}: {e}"));
    text
}

struct Tokens {
    tok: Vec<String>,
    pos: usize,
}

impl Tokens {
    fn new(text: &str) -> Self {
        Self { tok: text.split_whitespace().map(str::to_owned).collect(), pos: 0 }
    }
    fn f(&mut self) -> f64 {
        let t = &self.tok[self.pos];
        self.pos += 1;
        t.parse().unwrap_or_else(|_| panic!("not a number: {t}"))
    }
    fn u(&mut self) -> usize {
        self.f() as usize
    }
    fn vec(&mut self, n: usize) -> DVector<f64> {
        DVector::from_fn(n, |_, _| self.f())
    }
}

/// A Siconos `NumericsMatrix` in text form: dense (storage 0, column-major) or sparse-block
/// (storage 1, blocks column-major, each preceded by its index). `None` for other storages.
fn read_matrix(t: &mut Tokens) -> Option<DMatrix<f64>> {
    let storage = t.u();
    let (rows, cols) = (t.u(), t.u());
    match storage {
        0 => {
            let (r2, c2) = (t.u(), t.u());
            assert_eq!((r2, c2), (rows, cols));
            let mut m = DMatrix::zeros(rows, cols);
            for c in 0..cols {
                for r in 0..rows {
                    m[(r, c)] = t.f();
                }
            }
            Some(m)
        }
        1 => {
            let nb = t.u();
            let (bn0, bn1) = (t.u(), t.u());
            let bs0: Vec<usize> = (0..bn0).map(|_| t.u()).collect();
            let bs1: Vec<usize> = (0..bn1).map(|_| t.u()).collect();
            let (f1, f2) = (t.u(), t.u());
            let index1: Vec<usize> = (0..f1).map(|_| t.u()).collect();
            let index2: Vec<usize> = (0..f2).map(|_| t.u()).collect();
            let mut m = DMatrix::zeros(rows, cols);
            let start = |bs: &[usize], i: usize| if i == 0 { 0 } else { bs[i - 1] };
            for rb in 0..bn0 {
                for (j, &cb) in index2.iter().enumerate().take(index1[rb + 1]).skip(index1[rb]) {
                    let idx = t.u();
                    assert_eq!(idx, j, "block index");
                    let (r0, c0) = (start(&bs0, rb), start(&bs1, cb));
                    let (nr, ncb) = (bs0[rb] - r0, bs1[cb] - c0);
                    for c in 0..ncb {
                        for r in 0..nr {
                            m[(r0 + r, c0 + c)] = t.f();
                        }
                    }
                }
            }
            assert_eq!(nb, index1[bn0]);
            Some(m)
        }
        _ => None,
    }
}

/// A 3-D problem mapped onto the IPM's data.
pub struct Mapped {
    pub m: DMatrix<f64>,
    pub tau: DVector<f64>,
    pub v0: DVector<f64>,
    pub jn: DMatrix<f64>,
    pub jt: DMatrix<f64>,
    pub phi: DVector<f64>,
    pub offset: DVector<f64>,
    pub mu: DVector<f64>,
    pub models: Vec<ContactModel>,
    /// Local velocity `u(v) = Jfull v + w` (3nc×n, 3nc).
    pub jfull: DMatrix<f64>,
    pub w: DVector<f64>,
    pub norm: f64,
    pub global: bool,
    /// Physical impulses = solver impulses × this.
    pub impulse_scale: f64,
    /// Local problems: the file's Delassus matrix `W`; the error is measured with `u = W r + q`
    /// (not with the mapped problem, so a lossy mapping would show).
    pub delassus: Option<DMatrix<f64>>,
    /// [`load_delassus`]: the local problem is given to the solver as it is, in the Delassus data
    /// form (`IpmData::Delassus`, `docs/ipm.md` §11.10): `W`, `v0 = q` (3nc), `τ = 0`, `φ = 0`, no
    /// offset. `m`, `jn`, `jt`, `jfull` are then empty.
    pub contact_space: bool,
}

fn map(
    jfull: DMatrix<f64>,
    w: DVector<f64>,
    m: DMatrix<f64>,
    f: DVector<f64>,
    mu: DVector<f64>,
    global: bool,
) -> Mapped {
    let nc = mu.len();
    let n = m.nrows();
    let mut jn = DMatrix::zeros(nc, n);
    let mut jt = DMatrix::zeros(2 * nc, n);
    let mut phi = DVector::zeros(nc);
    let mut offset = DVector::zeros(2 * nc);
    for i in 0..nc {
        jn.row_mut(i).copy_from(&jfull.row(3 * i));
        jt.row_mut(2 * i).copy_from(&jfull.row(3 * i + 1));
        jt.row_mut(2 * i + 1).copy_from(&jfull.row(3 * i + 2));
        phi[i] = w[3 * i];
        offset[2 * i] = w[3 * i + 1];
        offset[2 * i + 1] = w[3 * i + 2];
    }
    let norm = if global { w.norm().max(f.norm()) } else { w.norm() };
    Mapped {
        v0: DVector::zeros(n),
        tau: f,
        m,
        jn,
        jt,
        phi,
        offset,
        mu,
        models: vec![ContactModel::SecondOrderCone; nc],
        jfull,
        w,
        norm: if norm > f64::EPSILON { norm } else { 1.0 },
        global,
        impulse_scale: 1.0,
        delassus: None,
        contact_space: false,
    }
}

/// How a local problem's impulses are scaled in the mapping (global problems are mapped as they
/// are).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Impulses {
    /// `r = σ r̂` with `σ = max(‖q‖, ε)/λ_max(W)`: the unknowns are O(1), which Dojo's iteration
    /// (absolute tolerances, unit start, `docs/ipm.md` §5) needs.
    Scaled,
    /// `σ = 1`: the solver's impulses are the file's. The engine iteration is scale-invariant and
    /// measures its natural map with the impulses in velocity units `r·V/P` (§11.8); with `σ = 1`
    /// the mapped mass is `(I + K)⁻¹ ≈ I`, so `P ≈ V` and that measure is Siconos' own (in the
    /// ∞-norm, relative to `‖q‖∞`): the tight setting (§11.9) stops on the measure the files are
    /// judged by.
    Unit,
}

/// Reads a 3-D local (`W, q, μ`) or global (`M, H, f, w, μ`) problem with the impulse scaling
/// [`Impulses::Scaled`]; `None` if it does not map.
pub fn load(name: &str) -> Option<Mapped> {
    load_with(name, Impulses::Scaled)
}

/// A 3-D file for the Delassus data form: a local problem as it is (`W`, `q`, μ; see
/// [`Mapped::contact_space`]), a global one as [`load_with`] maps it (`Impulses::Unit`).
pub fn load_delassus(name: &str) -> Option<Mapped> {
    load_impl(name, Impulses::Unit, true)
}

/// [`load`] with the given impulse scaling of the local problems.
pub fn load_with(name: &str, impulses: Impulses) -> Option<Mapped> {
    load_impl(name, impulses, false)
}

fn load_impl(name: &str, impulses: Impulses, contact_space: bool) -> Option<Mapped> {
    let text = read_text(name);
    let mut t = Tokens::new(&text);
    let d = t.u();
    if d != 3 {
        return None;
    }
    let nc = t.u();
    let first = read_matrix(&mut t)?;
    // A global file has H, f, w, μ after M; a local one only q and μ (GFC3D_TwoRods1-condensed is
    // a local problem despite its name).
    let remaining = t.tok.len() - t.pos;
    let global = remaining > 4 * nc + 1;
    if global {
        let h = read_matrix(&mut t)?;
        let n = first.nrows();
        assert_eq!(h.nrows(), n);
        assert_eq!(h.ncols(), 3 * nc);
        let f = t.vec(n);
        let w = t.vec(3 * nc);
        let mu = t.vec(nc);
        Some(map(h.transpose(), w, first, f, mu, true))
    } else {
        let wm = first;
        assert_eq!(wm.nrows(), 3 * nc);
        let q = t.vec(3 * nc);
        let mu = t.vec(nc);
        if contact_space {
            let norm = q.norm();
            return Some(Mapped {
                m: DMatrix::zeros(0, 0),
                tau: DVector::zeros(3 * nc),
                v0: q.clone(),
                jn: DMatrix::zeros(0, 0),
                jt: DMatrix::zeros(0, 0),
                phi: DVector::zeros(nc),
                offset: DVector::zeros(0),
                mu,
                models: vec![ContactModel::SecondOrderCone; nc],
                jfull: DMatrix::zeros(0, 0),
                w: q,
                norm: if norm > f64::EPSILON { norm } else { 1.0 },
                global: false,
                impulse_scale: 1.0,
                delassus: Some(wm),
                contact_space: true,
            });
        }
        // W = W_s + W_a (symmetric and antisymmetric parts; several files' W are not symmetric,
        // up to 1.5e-2 of max|W| for the Capsules). W_s = V Λ Vᵀ (kept eigenvalues λ > 1e-13 λ_max),
        // A = V (σΛ)^½, and with K = σ (σΛ)^-½ Vᵀ W_a V (σΛ)^-½ (antisymmetric):
        // A (I + K) Aᵀ = σ V Vᵀ (W_s + W_a) V Vᵀ = σ W whenever W_a lives in the range of W_s (true
        // for every file here: ‖W_a − V Vᵀ W_a V Vᵀ‖_F ≤ 4e-14). So J = A, M = (I + K)⁻¹
        // (well conditioned: I + K has singular values ≥ 1), u = J M⁻¹ Jᵀ r̂ + q = W r + q.
        let ws = 0.5 * (&wm + wm.transpose());
        let wa = 0.5 * (&wm - wm.transpose());
        let eig = SymmetricEigen::new(ws);
        let lmax = eig.eigenvalues.amax();
        let keep: Vec<usize> = (0..3 * nc).filter(|&i| eig.eigenvalues[i] > 1e-13 * lmax).collect();
        let n = keep.len();
        // Impulse scaling r = σ r̂ with σ = max(‖q‖, ε)/λ_max(W) makes the unknowns O(1) (the IPM's
        // start point and absolute tolerances are not scale-invariant, §5).
        let sigma = match impulses {
            Impulses::Scaled => q.norm().max(f64::EPSILON) / lmax,
            Impulses::Unit => 1.0,
        };
        let vk = DMatrix::from_fn(3 * nc, n, |r, c| eig.eigenvectors[(r, keep[c])]);
        let d = DVector::from_fn(n, |c, _| (sigma * eig.eigenvalues[keep[c]]).sqrt());
        let a = DMatrix::from_fn(3 * nc, n, |r, c| vk[(r, c)] * d[c]);
        let mut k = vk.transpose() * &wa * &vk;
        for c in 0..n {
            for r in 0..n {
                k[(r, c)] *= sigma / (d[r] * d[c]);
            }
        }
        let mass = if k.amax() == 0.0 {
            DMatrix::identity(n, n)
        } else {
            (DMatrix::identity(n, n) + k).try_inverse()?
        };
        let mut m = map(a, q, mass, DVector::zeros(n), mu, false);
        m.impulse_scale = sigma;
        m.delassus = Some(wm);
        Some(m)
    }
}

impl Mapped {
    /// The interior point's problem (`h = 1`): dense velocity-form data, or the Delassus form
    /// for [`load_delassus`]'s local problems.
    pub fn problem(&self) -> IpmProblem<'_> {
        let (data, vt_offset) = match &self.delassus {
            Some(w) if self.contact_space => (IpmData::Delassus { w: w.as_view() }, None),
            _ => (
                IpmData::Dense { m: self.m.as_view(), jn: self.jn.as_view(), jt: self.jt.as_view() },
                Some(self.offset.as_view()),
            ),
        };
        IpmProblem {
            data,
            v0: self.v0.as_view(),
            tau: self.tau.as_view(),
            h: 1.0,
            phi: self.phi.as_view(),
            mu: self.mu.as_view(),
            models: &self.models,
            vt_offset,
        }
    }
}

/// The 42 files that map (3-D), smallest first: 28 small, 7 mid-size, 7 large (225–570 contacts;
/// `RockPile_tob1`, nc = 463, is solved by no Siconos solver).
pub const SMALL: [&str; 28] = [
    "GFC3D_Example00.dat",
    "GFC3D_Example00_badly_scaled.dat",
    "GFC3D_Example0.dat",
    "GFC3D_Example0_SBM.dat",
    "GFC3D_Example1.dat",
    "GFC3D_OneContact.dat",
    "GFC3D_TwoRods1.dat",
    "GFC3D_TwoRods1-condensed.dat",
    "FrictionContact3D_1c.dat",
    "FrictionContact3D_RR_1c.dat",
    "FC3D_Example1.dat",
    "FC3D_Example1_SBM.dat",
    "Confeti-ex13-4contact-Fc3D-SBM.dat",
    "Rover1039.dat",
    "Rover1040.dat",
    "Rover1041.dat",
    "Rover11035.dat",
    "Rover11211.dat",
    "Rover3865.dat",
    "Rover4144.dat",
    "Rover4396.dat",
    "Rover4493.dat",
    "Rover4516.dat",
    "Rover4609.dat",
    "Rover4613.dat",
    "Rover4622.dat",
    "Rover9770.dat",
    "NESpheres_10_1.dat",
];
/// Mid-size local problems (up to 107 contacts).
pub const MID: [&str; 7] = [
    "NESpheres_30_1.dat",
    "OneObject-i1028-138.hdf5.dat",
    "OneObject-i100000-499.hdf5.dat",
    "OneObject-i100000-316.hdf5.dat",
    "BoxesStack1-i100000-32.hdf5.dat",
    "Confeti-ex03-Fc3D-SBM.dat",
    "Confeti-ex13-Fc3D-SBM.dat",
];
/// Large local problems (225–570 contacts, n up to 584).
pub const LARGE: [&str; 7] = [
    "Capsules-i101-404.dat",
    "Capsules-i103-990.dat",
    "Capsules-i100-1090.dat",
    "Capsules-i100-889.dat",
    "Capsules-i122-1617.dat",
    "KaplasTower-i1061-4.hdf5.dat",
    "RockPile_tob1.dat",
];

/// Siconos-style relative natural-map error of the solution `v`, `r` (local impulses).
pub fn natural_map_error(p: &Mapped, v: &[f64], r: &[f64]) -> f64 {
    let u = match &p.delassus {
        Some(w) => w * (p.impulse_scale * DVector::from_column_slice(r)) + &p.w,
        None => &p.jfull * DVector::from_column_slice(v) + &p.w,
    };
    let mut sum = 0.0;
    for i in 0..p.mu.len() {
        let mu = p.mu[i];
        let (un, ut) = (u[3 * i], [u[3 * i + 1], u[3 * i + 2]]);
        let sc = p.impulse_scale;
        let ri = [sc * r[3 * i], sc * r[3 * i + 1], sc * r[3 * i + 2]];
        let uhat_n = un + mu * (ut[0].hypot(ut[1]));
        let x = [ri[0] - uhat_n, ri[1] - ut[0], ri[2] - ut[1]];
        let xt = x[1].hypot(x[2]);
        let proj = if xt <= mu * x[0] {
            x
        } else if mu * xt <= -x[0] {
            [0.0; 3]
        } else {
            let a = (x[0] + mu * xt) / (1.0 + mu * mu);
            [a, mu * a * x[1] / xt, mu * a * x[2] / xt]
        };
        sum += (0..3).map(|k| (ri[k] - proj[k]).powi(2)).sum::<f64>();
    }
    sum.sqrt() / p.norm
}
