//! `calc_jacobian` against central finite differences of `calc_residual` on random one-way and
//! two-way problems, at velocities away from the kinks of the friction law (x = 1) and of the
//! normal-force law (either factor = 0), where R is smooth and J is its exact derivative (§4).

use contact_solvers::tamsi::{TamsiParameters, TamsiProblem, TamsiSolver};
use nalgebra::{DMatrix, DVector};

/// Small deterministic generator (no test-only dependency needed).
struct Rng(u64);
impl Rng {
    fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn symmetric(&mut self) -> f64 {
        2.0 * self.uniform() - 1.0
    }
}

struct Random {
    m: DMatrix<f64>,
    jn: DMatrix<f64>,
    jt: DMatrix<f64>,
    p_star: DVector<f64>,
    mu: DVector<f64>,
    fn_: DVector<f64>,
    fn0: DVector<f64>,
    k: DVector<f64>,
    d: DVector<f64>,
}

fn random_problem(rng: &mut Rng, nv: usize, nc: usize) -> Random {
    let a = DMatrix::from_fn(nv, nv, |_, _| rng.symmetric());
    let m = &a * a.transpose() + DMatrix::identity(nv, nv);
    // Sparse-ish Jacobians: each contact touches a random subset of the velocities.
    let mut jn = DMatrix::zeros(nc, nv);
    let mut jt = DMatrix::zeros(2 * nc, nv);
    for i in 0..nc {
        for c in 0..nv {
            if rng.uniform() < 0.6 {
                jn[(i, c)] = rng.symmetric();
                jt[(2 * i, c)] = rng.symmetric();
                jt[(2 * i + 1, c)] = rng.symmetric();
            }
        }
    }
    Random {
        m,
        jn,
        jt,
        p_star: DVector::from_fn(nv, |_, _| rng.symmetric()),
        mu: DVector::from_fn(nc, |_, _| 0.2 + 0.6 * rng.uniform()),
        fn_: DVector::from_fn(nc, |_, _| 1.0 + 10.0 * rng.uniform()),
        fn0: DVector::from_fn(nc, |_, _| 5.0 + 10.0 * rng.uniform()),
        k: DVector::from_fn(nc, |_, _| 1e3 + 1e4 * rng.uniform()),
        d: DVector::from_fn(nc, |_, _| 0.1 + rng.uniform()),
    }
}

/// True when every contact at `v` is at least 5% away from every kink.
fn away_from_kinks(p: &Random, v: &DVector<f64>, params: &TamsiParameters, dt: f64) -> bool {
    let vs = params.stiction_tolerance;
    let vn = &p.jn * v;
    let vt = &p.jt * v;
    (0..p.mu.len()).all(|i| {
        let w = (vt[2 * i].powi(2) + vt[2 * i + 1].powi(2)).sqrt() / vs;
        let damping = 1.0 - p.d[i] * vn[i];
        let spring = (p.fn0[i] - dt * p.k[i] * vn[i]) / p.fn0[i];
        (w - 1.0).abs() > 0.05 && damping.abs() > 0.05 && spring.abs() > 0.05
    })
}

fn check(two_way: bool) {
    let mut rng = Rng(if two_way { 2 } else { 1 });
    let params =
        TamsiParameters { stiction_tolerance: 0.5, relative_tolerance: 0.05, ..TamsiParameters::default() };
    let dt = 1e-2;
    let mut checked = 0;
    let mut sticking = 0;
    let mut asymmetric = 0;
    while checked < 40 {
        let nv = 2 + (rng.uniform() * 7.0) as usize;
        let nc = 1 + (rng.uniform() * 5.0) as usize;
        let p = random_problem(&mut rng, nv, nc);
        let v = DVector::from_fn(nv, |_, _| rng.symmetric());
        if !away_from_kinks(&p, &v, &params, dt) {
            continue;
        }
        let problem = if two_way {
            TamsiProblem::two_way(
                p.m.as_view(),
                p.jn.as_view(),
                p.jt.as_view(),
                p.p_star.as_view(),
                p.fn0.as_view(),
                p.k.as_view(),
                p.d.as_view(),
                p.mu.as_view(),
            )
        } else {
            TamsiProblem::one_way(
                p.m.as_view(),
                p.jn.as_view(),
                p.jt.as_view(),
                p.p_star.as_view(),
                p.fn_.as_view(),
                p.mu.as_view(),
            )
        }
        .unwrap();
        let mut solver = TamsiSolver::new(nv);
        solver.set_parameters(params).unwrap();
        let mut j = DMatrix::zeros(nv, nv);
        solver.calc_jacobian(&problem, dt, v.as_view(), j.as_view_mut()).unwrap();

        let residual = |solver: &mut TamsiSolver, v: &DVector<f64>| {
            let mut r = DVector::zeros(nv);
            solver.calc_residual(&problem, dt, v.as_view(), r.as_view_mut()).unwrap();
            r
        };
        let h = 1e-6;
        let mut j_fd = DMatrix::zeros(nv, nv);
        for c in 0..nv {
            let (mut vp, mut vm) = (v.clone(), v.clone());
            vp[c] += h;
            vm[c] -= h;
            let col = (residual(&mut solver, &vp) - residual(&mut solver, &vm)) / (2.0 * h);
            j_fd.set_column(c, &col);
        }
        let scale = j.abs().max();
        let err = (&j - &j_fd).abs().max();
        assert!(
            err <= 1e-6 * scale,
            "two_way = {two_way}, nv = {nv}, nc = {nc}: |J − J_fd| = {err:e}, |J| = {scale:e}"
        );
        if two_way {
            // Non-symmetric through the friction–normal coupling, unless every contact separated.
            if (&j - j.transpose()).abs().max() > 1e-9 * scale {
                asymmetric += 1;
            }
        } else {
            assert!((&j - j.transpose()).abs().max() <= 1e-12 * scale, "one-way J is symmetric");
        }
        let vt = &p.jt * &v;
        if (0..nc).any(|i| (vt[2 * i].powi(2) + vt[2 * i + 1].powi(2)).sqrt() < params.stiction_tolerance) {
            sticking += 1;
        }
        checked += 1;
    }
    assert!(sticking > 0, "some problems exercise the stiction region");
    assert!(!two_way || asymmetric > 10, "two-way Jacobians are non-symmetric ({asymmetric} of 40)");
}

#[test]
fn one_way_jacobian_matches_finite_differences() {
    check(false);
}

#[test]
fn two_way_jacobian_matches_finite_differences() {
    check(true);
}
