//! Acceptance cases A1–A7 and A9 of `specs/ipm.md` §9 (point mass, generic formulation §1.2).
//! A8 needs a rigid-body stepper except for its Jacobian checks, which live in
//! `ipm_sensitivity.rs` (data Jacobians vs finite differences) and in the solver's unit tests
//! (Newton matrix vs finite differences).

mod ipm_common;

use contact_solvers::ipm::{ContactModel, IpmOutcome, IpmParameters, IpmSolver, NewtonSolve};
use ipm_common::{PointMass, simulate, tol};

const G: f64 = 9.81;

fn close(a: f64, b: f64, t: f64, what: &str) {
    assert!((a - b).abs() <= t, "{what}: {a} vs {b} (tolerance {t}, diff {:e})", (a - b).abs());
}

/// Relative agreement with a reference printed to a few significant digits.
fn rel(a: f64, b: f64, r: f64, what: &str) {
    assert!((a - b).abs() <= r * b.abs(), "{what}: {a:e} vs {b:e} (relative {r})");
}

#[test]
fn a1_drop_and_rest() {
    let pm = PointMass::new(1.0, 0.01, G, 0.5, ContactModel::SecondOrderCone);
    let t = simulate(&pm, tol(1e-8, 1e-8), [0.0, 0.0, 1.0], [0.0; 3], 200);
    eprintln!(
        "A1 1e-8: g45 {} g46 {} min z {:e} rest z {:e} iters {:?} mean {} fail {}",
        t.gamma_n[44], t.gamma_n[45], t.min_z(), t.x[199][2],
        (t.iterations.iter().min(), t.iterations.iter().max()), t.mean_iterations(), t.failures
    );
    // Exact free fall up to step 44.
    close(t.x[43][2], 0.028810, 5e-7, "z_44");
    close(t.v[43][2], -4.3164, 5e-5, "v_44");
    close(t.gamma_n[44], 1.5335, 1e-3, "gamma_45");
    close(t.gamma_n[45], 2.9791, 1e-3, "gamma_46");
    for k in 50..=200 {
        close(t.gamma_n[k - 1], 0.0981, 1e-6, &format!("gamma_{k}"));
    }
    assert!(t.min_z() > -1e-8, "min z {}", t.min_z());
    let vf = t.v[199];
    assert!(vf.iter().all(|x| x.abs() < 1e-8), "v_final {vf:?}");
    assert_eq!(t.failures, 0);
    // Re-implementation fingerprint (soft, path dependent): 6–8 iterations, mean 7.7.
    assert!(t.iterations.iter().all(|&i| i <= 15));
}

#[test]
fn a1_fingerprints_at_looser_tolerances() {
    let pm = PointMass::new(1.0, 0.01, G, 0.5, ContactModel::SecondOrderCone);
    for (btol, rtol) in [(1e-4, 1e-6), (1e-6, 1e-6)] {
        let t = simulate(&pm, tol(btol, rtol), [0.0, 0.0, 1.0], [0.0; 3], 200);
        eprintln!(
            "A1 {btol:e}: g43 {:e} g44 {:e} g45 {} g46 {} g47 {} min z {:e} rest z {:e} iters {:?} mean {} fail {}",
            t.gamma_n[42], t.gamma_n[43], t.gamma_n[44], t.gamma_n[45], t.gamma_n[46], t.min_z(), t.x[199][2],
            (t.iterations.iter().min(), t.iterations.iter().max()), t.mean_iterations(), t.failures
        );
    }
    let mut p = tol(1e-6, 1e-6);
    p.dojo_lagged_kappa = true;
    let t = simulate(&pm, p, [0.0, 0.0, 1.0], [0.0; 3], 200);
    eprintln!(
        "A1 lagged 1e-6: g45 {} rest z {:e} mean {} fail {}",
        t.gamma_n[44], t.x[199][2], t.mean_iterations(), t.failures
    );
}

fn a2_run(f: f64, params: IpmParameters) -> (IpmSolver, IpmOutcome) {
    let pm = PointMass::new(1.0, 0.1, G, 0.5, ContactModel::SecondOrderCone);
    let mut s = IpmSolver::new(params).unwrap();
    let out = pm.step(&mut s, &[0.0; 3], &[0.0; 3], [f, 0.0]);
    (s, out)
}

#[test]
fn a2_stick_and_slip() {
    for mode in [NewtonSolve::Condensed, NewtonSolve::Dense] {
        for (f, vx, xi1) in [(3.0, 0.0, -0.3), (6.0, 0.1095, -0.4905)] {
            let mut p = tol(1e-8, 1e-8);
            p.newton_solve = mode;
            let (s, out) = a2_run(f, p);
            assert_eq!(out, IpmOutcome::Converged);
            let v = s.velocities();
            let g = s.primal();
            eprintln!("A2 F={f} {mode:?}: iters {} v {v:?} gamma {g:?} eta {:?}", s.stats().iterations, s.dual());
            close(v[0], vx, 1e-6, "v+_x");
            close(v[1], 0.0, 1e-6, "v+_y");
            close(v[2], 0.0, 1e-6, "v+_z");
            close(g[0], 0.981, 1e-6, "gamma_n");
            close(g[1], 0.4905, 1e-6, "xi_0");
            close(g[2], xi1, 1e-6, "xi_1");
            close(g[3], 0.0, 1e-6, "xi_2");
            if f == 6.0 {
                close(s.dual()[1], 0.1095, 1e-6, "eta_0");
            }
            assert!(s.stats().iterations <= 15);
        }
    }
}

#[test]
fn a2_iteration_fingerprint() {
    // §9.A2, btol = 1e-6 (rtol default 1e-6): the re-implementation's history, given to 2–3
    // significant digits.
    let (s, out) = a2_run(3.0, tol(1e-6, 1e-6));
    eprintln!("A2 fp: {:?}\n r {:?}\n b {:?}\n k {:?}\n a {:?}", s.stats(), s.rvio_history(), s.bvio_history(), s.kappa_history(), s.alpha_history());
    eprintln!(" v {:?} g {:?}", s.velocities(), s.primal());
    assert_eq!(out, IpmOutcome::Converged);
    let (s6, _) = a2_run(6.0, tol(1e-6, 1e-6));
    eprintln!("A2 F6 fp: {:?} v {:?} g {:?}", s6.stats().iterations, s6.velocities(), s6.primal());
}
