//! Siconos' 3-D frictional-contact test problems (`tests/data/siconos/friction_contact/*.dat.gz`,
//! read at test time) mapped onto the engine-agnostic problem of `docs/ipm.md` §1.2 with `h = 1`.
//!
//! * Global problems `M v = f + H r`, `u = Hᵀ v + w` (`GFC3D_*`): `J = Hᵀ`, `τ = f`, `v0 = 0`,
//!   gap `φ_i = w_n,i`, tangential offset `w_t,i`. Exact mapping.
//! * Local problems `u = W r + q` (`FC3D_*`, `Rover*`, `NESpheres*`, `Capsules*`, `Confeti*`,
//!   `BoxesStack*`, `OneObject*`, `KaplasTower*`, `RockPile*`, `GFC3D_TwoRods1-condensed`):
//!   `W = W_s + W_a` (symmetric and antisymmetric parts), `W_s = V Λ Vᵀ` (rank-revealing), `J = A =
//!   V (σΛ)^½`, `M = (I + K)⁻¹` with `K = σ (σΛ)^-½ Vᵀ W_a V (σΛ)^-½` antisymmetric, `v0 = τ = 0`,
//!   `φ_i = q_n,i`, offset `q_t,i`, impulses scaled by σ (see [`load`]). Exact whenever `W_s` is
//!   positive semi-definite and `W_a` lives in its range, which holds for every file mapped here;
//!   the error below is measured with the file's own `W` anyway.
//!
//! Both are Coulomb friction with the velocity-level Signorini condition, which is the κ → 0 limit
//! of the SOC model (§1.3). The accuracy measure is Siconos' natural-map residual
//! `‖r − Π_K(r − (u + μ|u_t| e_n))‖₂`, relative to `‖q‖₂` (`‖w‖₂` and `‖f‖₂` for global problems,
//! 1 if zero), re-implemented here from its definition.
//! Not mapped: 2-D problems (`fc2d*`, `gfc2d*`, `FrictionContactProblem*`, `FC2D_*`),
//! CSparse-stored files, `ACinputs.dat` (not a friction-contact problem) and the FCLIB `.hdf5`
//! files (no HDF5 reader in the project).

use contact_solvers::ipm::{ContactModel, IpmData, IpmOutcome, IpmParameters, IpmProblem, IpmSolver};
use nalgebra::{DMatrix, DVector, SymmetricEigen};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/siconos/friction_contact/");

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
struct Mapped {
    m: DMatrix<f64>,
    tau: DVector<f64>,
    v0: DVector<f64>,
    jn: DMatrix<f64>,
    jt: DMatrix<f64>,
    phi: DVector<f64>,
    offset: DVector<f64>,
    mu: DVector<f64>,
    models: Vec<ContactModel>,
    /// Local velocity `u(v) = Jfull v + w` (3nc×n, 3nc).
    jfull: DMatrix<f64>,
    w: DVector<f64>,
    norm: f64,
    global: bool,
    /// Physical impulses = solver impulses × this.
    impulse_scale: f64,
    /// Local problems: the file's Delassus matrix `W`; the error is measured with `u = W r + q`
    /// (not with the mapped problem, so a lossy mapping would show).
    delassus: Option<DMatrix<f64>>,
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
    }
}

/// Reads a 3-D local (`W, q, μ`) or global (`M, H, f, w, μ`) problem; `None` if it does not map.
fn load(name: &str) -> Option<Mapped> {
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
        let sigma = q.norm().max(f64::EPSILON) / lmax;
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

/// Siconos-style relative natural-map error of the solution `v`, `r` (local impulses).
fn natural_map_error(p: &Mapped, v: &[f64], r: &[f64]) -> f64 {
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

struct Run {
    outcome: IpmOutcome,
    iterations: usize,
    error: f64,
    nc: usize,
    n: usize,
    rvio: f64,
    bvio: f64,
    kappa: f64,
    ls_exhausted: usize,
    /// btol / ‖q‖² of the reported solve.
    btol: f64,
    /// Solves done (btol continuation, see [`run`]) and their total time.
    solves: usize,
    seconds: f64,
}

fn fmt(x: &[f64]) -> String {
    x.iter().map(|v| format!("{v:.1e}")).collect::<Vec<_>>().join(" ")
}

/// Solves with `rtol = 1e-12‖q‖` and `btol = 1e-14‖q‖²`; if that converges to a natural-map error
/// above 1e-8, solves again with btol 10×, 100×, … 1e6× smaller (stopping at the first solve that
/// does not converge). Why: the natural map error of a normal pair is about
/// `min(σγ_n, s_n) ≤ √(σ·γ_n s_n)`, so with a large impulse scale σ (1e5–1e6 for the Confeti
/// problems) a fixed btol leaves it at 1e-6–1e-5, while a btol small enough for them is below the
/// round-off floor of others (Rover*, stall at bvio ≈ 3e-16‖q‖²). Siconos' solvers likewise stop
/// on their own error measure. Each solve starts from scratch with the solver's defaults otherwise.
fn run(p: &Mapped) -> Run {
    let mut total = 0.0;
    let mut last = None;
    for (k, factor) in [1.0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6].into_iter().enumerate() {
        let mut r = solve_once(p, 1e-14 * factor);
        total += r.seconds;
        r.seconds = total;
        r.solves = k + 1;
        let done = r.outcome != IpmOutcome::Converged || r.error <= 1e-8;
        last = Some(r);
        if done {
            break;
        }
    }
    last.unwrap()
}

fn solve_once(p: &Mapped, btol_rel: f64) -> Run {
    // Tolerances relative to the problem's scale (Dojo's are absolute, §5).
    let params = IpmParameters {
        rtol: 1e-12 * p.norm,
        btol: btol_rel * p.norm * p.norm,
        max_iter: 100,
        // Opt-in, not Dojo's rule: with Dojo's backtracking Capsules-i101-404 crawls for ~80
        // iterations with every halving rejected (rvio at its round-off floor, far below rtol,
        // cannot decrease, and bvio rises at every candidate, so α/2⁹ is taken) and converges at
        // iteration 105 (max_iter 200); with the option, in 22. No other problem here changes.
        rvio_floor_in_backtracking: true,
        ..IpmParameters::dojo()
    };
    let t0 = std::time::Instant::now();
    let mut s = IpmSolver::new(params).unwrap();
    let prob = IpmProblem {
        data: IpmData::Dense { m: p.m.as_view(), jn: p.jn.as_view(), jt: p.jt.as_view() },
        v0: p.v0.as_view(),
        tau: p.tau.as_view(),
        h: 1.0,
        phi: p.phi.as_view(),
        mu: p.mu.as_view(),
        models: &p.models,
        vt_offset: Some(p.offset.as_view()),
    };
    let outcome = s.solve(&prob).unwrap();
    let seconds = t0.elapsed().as_secs_f64();
    if std::env::var("IPM_DEBUG").is_ok() {
        eprintln!(
            "  norm {:e} rtol {:e} btol {:e} stats {:?}\n  r {}\n  b {}\n  a {}\n  k {}",
            p.norm,
            params.rtol,
            params.btol,
            s.stats(),
            fmt(s.rvio_history()),
            fmt(s.bvio_history()),
            fmt(s.alpha_history()),
            fmt(s.kappa_history()),
        );
    }
    if p.global {
        // The momentum equation M v = f + H r holds to rtol.
        let r = DVector::from_column_slice(s.impulses());
        let res = &p.m * DVector::from_column_slice(s.velocities()) - &p.tau - p.jfull.transpose() * r;
        assert!(res.amax() <= 10.0 * params.rtol || outcome != IpmOutcome::Converged);
    }
    Run {
        outcome,
        iterations: s.stats().iterations,
        error: natural_map_error(p, s.velocities(), s.impulses()),
        nc: p.mu.len(),
        n: p.m.nrows(),
        rvio: s.stats().rvio / p.norm,
        bvio: s.stats().bvio / (p.norm * p.norm),
        kappa: s.stats().kappa / (p.norm * p.norm),
        ls_exhausted: s.stats().line_search_exhausted,
        btol: btol_rel,
        solves: 1,
        seconds,
    }
}

fn report(names: &[&str]) -> Vec<(String, Option<Run>)> {
    let only = std::env::var("IPM_ONLY").ok();
    names
        .iter()
        .filter(|name| only.as_ref().is_none_or(|o| name.contains(o.as_str())))
        .map(|&name| {
            let r = load(name).map(|p| run(&p));
            match &r {
                Some(r) => eprintln!(
                    "{name:36} nc {:4} n {:5} {:?} it {:3} nm-err {:.2e} rvio/|q| {:.1e} bvio/|q|² {:.1e} \
                     κ/|q|² {:.1e} ls-exh {} btol/|q|² {:.0e} solves {} {:.2} s",
                    r.nc,
                    r.n,
                    r.outcome,
                    r.iterations,
                    r.error,
                    r.rvio,
                    r.bvio,
                    r.kappa,
                    r.ls_exhausted,
                    r.btol,
                    r.solves,
                    r.seconds
                ),
                None => eprintln!("{name:40} does not map"),
            }
            (name.to_owned(), r)
        })
        .collect()
}

/// Small 3-D problems (global and local): all must be solved to a natural-map error ≤ 1e-8.
#[test]
fn small_siconos_3d_problems_are_solved_to_1e_8() {
    let names = [
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
    assert_solved(&names);
}

fn assert_solved(names: &[&str]) {
    let results = report(names);
    let failed: Vec<&String> = results
        .iter()
        .filter(|(_, r)| !matches!(r, Some(r) if r.outcome == IpmOutcome::Converged && r.error <= 1e-8))
        .map(|(n, _)| n)
        .collect();
    assert!(failed.is_empty(), "not solved to 1e-8: {failed:?}");
}

/// Mid-size local problems (up to 107 contacts, 0.1 s each in a release build).
#[test]
fn mid_size_siconos_3d_problems_are_solved_to_1e_8() {
    assert_solved(&[
        "NESpheres_30_1.dat",
        "OneObject-i1028-138.hdf5.dat",
        "OneObject-i100000-499.hdf5.dat",
        "OneObject-i100000-316.hdf5.dat",
        "BoxesStack1-i100000-32.hdf5.dat",
        "Confeti-ex03-Fc3D-SBM.dat",
        "Confeti-ex13-Fc3D-SBM.dat",
    ]);
}

/// Large local problems (225–570 contacts, n up to 584, about 1 s each in a release build):
/// `cargo test --release --test solvers ipm_siconos:: -- --ignored --nocapture`.
#[test]
#[ignore = "large problems: about 7 s in a release build, minutes in a debug build"]
fn large_siconos_3d_problems_are_solved_to_1e_8() {
    assert_solved(&[
        "Capsules-i101-404.dat",
        "Capsules-i103-990.dat",
        "Capsules-i100-1090.dat",
        "Capsules-i100-889.dat",
        "Capsules-i122-1617.dat",
        "KaplasTower-i1061-4.hdf5.dat",
    ]);
}

/// The large problem not solved, `RockPile_tob1` (no Siconos solver solves it either): prints the
/// outcome.
#[test]
#[ignore = "large problem: about 15 s in a release build"]
fn unsolved_siconos_3d_problem_report() {
    report(&["RockPile_tob1.dat"]);
}

#[test]
fn two_dimensional_and_other_files_do_not_map() {
    for name in [
        "FC2D_SliderCrankLagrangian00000.dat",
        "FrictionContactProblem00031.dat",
        "gfc2d_granularflowonwall_00000_00117.dat",
    ] {
        assert!(load(name).is_none(), "{name}");
    }
}

/// The small and mid-size 3-D files of [`engine_convergence_agrees_with_the_natural_map_error`].
const ENGINE_FILES: [&str; 32] = [
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
    "NESpheres_30_1.dat",
    "OneObject-i1028-138.hdf5.dat",
    "BoxesStack1-i100000-32.hdf5.dat",
    "Confeti-ex03-Fc3D-SBM.dat",
];

/// The engine iteration at its defaults converges on every small and mid-size mapped 3-D file
/// (Dojo's defaults, with absolute tolerances, report "converged" with natural-map errors of 3.9,
/// 72 and 3.7e4 on three of them, issue 14), and its statistics say why: scaled residual and
/// complementarity below the tolerances.
#[test]
fn engine_defaults_converge_on_every_mapped_file() {
    let prm = IpmParameters::default();
    for name in ENGINE_FILES {
        let p = load(name).unwrap_or_else(|| panic!("{name} does not map"));
        let mut s = IpmSolver::new(prm).unwrap();
        let prob = IpmProblem {
            data: IpmData::Dense { m: p.m.as_view(), jn: p.jn.as_view(), jt: p.jt.as_view() },
            v0: p.v0.as_view(),
            tau: p.tau.as_view(),
            h: 1.0,
            phi: p.phi.as_view(),
            mu: p.mu.as_view(),
            models: &p.models,
            vt_offset: Some(p.offset.as_view()),
        };
        assert_eq!(s.solve(&prob).unwrap(), IpmOutcome::Converged, "{name}");
        let st = s.stats();
        assert!(st.residual <= prm.tolerance && st.complementarity <= prm.complementarity_tolerance);
        assert!(st.iterations <= 20, "{name}: {}", st.iterations);
    }
}

/// The engine iteration (the solver's default, `docs/ipm.md` §11) on every mapped 3-D file of the
/// small and mid-size sets: its scale-invariant "converged" should agree with Siconos'
/// natural-map error. A normal pair's natural-map error is `min(r_n, u_n) ≤ √(r_n u_n)`, so a
/// converged point's relative error should stay below about `√nc·√complementarity_tolerance`
/// (1e-3·√nc at the defaults) and below 1e-6 at the tight setting (tolerance 1e-12,
/// complementarity_tolerance 1e-13).
///
/// FAILS today (not a passing check): at the defaults every file converges (32 of 32, 4–16
/// iterations) but three are above that bound: `GFC3D_Example00_badly_scaled` (1.6),
/// `GFC3D_TwoRods1` (2.0e-3 > 1.7e-3), `Confeti-ex03-Fc3D-SBM` (8.2e-2). The natural map mixes
/// impulses and velocities, so on a badly scaled file (or one whose impulses are 1e5 times its
/// velocities) it is not comparable with a scale-invariant measure; the relation is open.
#[test]
#[ignore = "fails on three files, see the doc comment and docs/ipm.md §11"]
fn engine_convergence_agrees_with_the_natural_map_error() {
    let names = ENGINE_FILES;
    let defaults = IpmParameters::default();
    let tight =
        IpmParameters { tolerance: 1e-12, complementarity_tolerance: 1e-16, max_iter: 200, ..defaults };
    let mut disagree = Vec::new();
    let mut unsolved_tight = Vec::new();
    let mut mapped = 0;
    for name in names {
        let p = load(name).unwrap_or_else(|| panic!("{name} does not map"));
        mapped += 1;
        for (setting, prm, bound) in
            [("default", defaults, 1e-3 * (p.mu.len() as f64).sqrt()), ("tight", tight, 1e-6)]
        {
            let mut s = IpmSolver::new(prm).unwrap();
            let prob = IpmProblem {
                data: IpmData::Dense { m: p.m.as_view(), jn: p.jn.as_view(), jt: p.jt.as_view() },
                v0: p.v0.as_view(),
                tau: p.tau.as_view(),
                h: 1.0,
                phi: p.phi.as_view(),
                mu: p.mu.as_view(),
                models: &p.models,
                vt_offset: Some(p.offset.as_view()),
            };
            let out = s.solve(&prob).unwrap();
            let err = natural_map_error(&p, s.velocities(), s.impulses());
            let st = s.stats();
            eprintln!(
                "{name:36} {setting:7} {out:?} it {:3} nm-err {err:.2e} residual {:.1e} complementarity {:.1e}",
                st.iterations, st.residual, st.complementarity
            );
            if out == IpmOutcome::Converged && err > bound {
                disagree.push(format!("{name} ({setting}): {err:e} > {bound:e}"));
            }
            if setting == "tight" && out != IpmOutcome::Converged {
                unsolved_tight.push(name);
            }
        }
    }
    assert_eq!(mapped, names.len());
    eprintln!("not converged at the tight setting: {unsolved_tight:?}");
    assert!(disagree.is_empty(), "converged above the natural-map bound: {disagree:?}");
}

/// The scaled natural-map error of §11.8 recomputed from the outputs of an engine solve of `p`:
/// `max_i ‖r̃_i − Π_K(r̃_i − (u_n + μ‖u_t‖, u_t))‖∞ / V` with `r̃ = r·V/P` (the solver's impulses,
/// the solver's scales) and `u = J v + w`.
fn scaled_natural_map(p: &Mapped, s: &IpmSolver) -> f64 {
    let st = s.stats();
    let (big_p, big_v) = (st.momentum_scale, st.velocity_scale);
    let u = &p.jfull * DVector::from_column_slice(s.velocities()) + &p.w;
    let r = s.impulses();
    let mut worst: f64 = 0.0;
    for i in 0..p.mu.len() {
        let mu = p.mu[i];
        let c = big_v / big_p;
        let ri = [c * r[3 * i], c * r[3 * i + 1], c * r[3 * i + 2]];
        let ut = [u[3 * i + 1], u[3 * i + 2]];
        let x = [ri[0] - (u[3 * i] + mu * ut[0].hypot(ut[1])), ri[1] - ut[0], ri[2] - ut[1]];
        let xt = x[1].hypot(x[2]);
        let proj = if x[0] >= 0.0 && xt <= mu * x[0] {
            x
        } else if mu * xt <= -x[0] {
            [0.0; 3]
        } else {
            let a = (x[0] + mu * xt) / (1.0 + mu * mu);
            [a, mu * a * x[1] / xt, mu * a * x[2] / xt]
        };
        for k in 0..3 {
            worst = worst.max((ri[k] - proj[k]).abs());
        }
    }
    worst / big_v
}

/// Truth at the defaults (`docs/ipm.md` §11.8): on every mapped 3-D file, a default engine solve
/// that reports `Converged` has a scaled natural-map error ≤ `natural_map_tolerance` (1e-6),
/// recomputed here from its outputs. Siconos' own normalized error (unscaled impulses and
/// velocities, divided by ‖q‖) is printed beside it: it mixes the file's units, so it is not
/// bounded by a scale-invariant test (see §11.8 for the measured values).
fn check_natural_map_truth(names: &[&str]) {
    let prm = IpmParameters::default();
    assert_eq!(prm.natural_map_tolerance, 1e-6);
    let mut converged = 0;
    for name in names {
        let p = load(name).unwrap_or_else(|| panic!("{name} does not map"));
        let mut s = IpmSolver::new(IpmParameters { max_iter: 200, ..prm }).unwrap();
        let prob = IpmProblem {
            data: IpmData::Dense { m: p.m.as_view(), jn: p.jn.as_view(), jt: p.jt.as_view() },
            v0: p.v0.as_view(),
            tau: p.tau.as_view(),
            h: 1.0,
            phi: p.phi.as_view(),
            mu: p.mu.as_view(),
            models: &p.models,
            vt_offset: Some(p.offset.as_view()),
        };
        let out = s.solve(&prob).unwrap();
        let st = *s.stats();
        let nm = scaled_natural_map(&p, &s);
        let siconos = natural_map_error(&p, s.velocities(), s.impulses());
        eprintln!(
            "{name:40} {out:?} it {:3} scaled natural map {nm:.2e} (stats {:.2e}) Siconos error {siconos:.2e}",
            st.iterations, st.natural_map
        );
        assert!(s.velocities().iter().chain(s.impulses()).all(|x| x.is_finite()), "{name}");
        if out == IpmOutcome::Converged {
            converged += 1;
            assert!(nm <= prm.natural_map_tolerance * (1.0 + 1e-6), "{name}: {nm:e}");
            assert!(
                (nm - st.natural_map).abs() <= 1e-9 + 1e-6 * nm,
                "{name}: {nm:e} vs {:e}",
                st.natural_map
            );
        } else {
            assert!(st.merit > 1.0, "{name}: {st:?}");
        }
    }
    eprintln!("{converged}/{} converged", names.len());
}

#[test]
fn engine_defaults_converged_implies_the_natural_map_bound() {
    let mut names: Vec<&str> = ENGINE_FILES.to_vec();
    for extra in
        ["OneObject-i100000-499.hdf5.dat", "OneObject-i100000-316.hdf5.dat", "Confeti-ex13-Fc3D-SBM.dat"]
    {
        if !names.contains(&extra) {
            names.push(extra);
        }
    }
    assert_eq!(names.len(), 35);
    check_natural_map_truth(&names);
}

#[test]
#[ignore = "large problems: run in a release build (cargo test --release --test solvers natural_map -- --ignored)"]
fn engine_defaults_converged_implies_the_natural_map_bound_large() {
    check_natural_map_truth(&[
        "Capsules-i101-404.dat",
        "Capsules-i103-990.dat",
        "Capsules-i100-1090.dat",
        "Capsules-i100-889.dat",
        "Capsules-i122-1617.dat",
        "KaplasTower-i1061-4.hdf5.dat",
        "RockPile_tob1.dat",
    ]);
}
