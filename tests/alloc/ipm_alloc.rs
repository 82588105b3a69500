//! A repeated solve (and sensitivity computation) allocates nothing once the workspace has grown
//! (DESIGN.md: "No allocation inside a solve once the workspace has grown"), on dense data and on
//! block-sparse data (`IpmData::Blocks`, engine scenes whose islands take the sparse
//! factorization).

use crate::counting_alloc::{allocations_during, allocations_with_workers_during};
use contact_solvers::ipm::{
    ContactModel, IpmData, IpmOutcome, IpmParameters, IpmProblem, IpmSolver, NewtonSolve,
};
use nalgebra::{DMatrix, DVector};
use support::engine_scenes::scene;
use support::tamsi_blocks::from_scene;

fn lcg(s: &mut u64) -> f64 {
    *s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    ((*s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
}

/// Boxes resting on the ground: `bodies` free bodies (6 dofs each), 4 contacts per body.
struct Data {
    m: DMatrix<f64>,
    v0: DVector<f64>,
    tau: DVector<f64>,
    jn: DMatrix<f64>,
    jt: DMatrix<f64>,
    phi: DVector<f64>,
    mu: DVector<f64>,
    models: Vec<ContactModel>,
}

fn data(bodies: usize, seed: u64) -> Data {
    let mut s = seed;
    let n = 6 * bodies;
    let nc = 4 * bodies;
    let mut m = DMatrix::zeros(n, n);
    let mut jn = DMatrix::zeros(nc, n);
    let mut jt = DMatrix::zeros(2 * nc, n);
    for b in 0..bodies {
        for k in 0..3 {
            m[(6 * b + k, 6 * b + k)] = 1.0;
            m[(6 * b + 3 + k, 6 * b + 3 + k)] = 0.1;
        }
        for c in 0..4 {
            let i = 4 * b + c;
            // Corner at r = (±0.5, ±0.5, −0.5): rows of [I, −[r]×].
            let r = [if c & 1 == 0 { 0.5 } else { -0.5 }, if c & 2 == 0 { 0.5 } else { -0.5 }, -0.5];
            let rows = [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
            for (a, d) in rows.iter().enumerate() {
                let cross = [r[1] * d[2] - r[2] * d[1], r[2] * d[0] - r[0] * d[2], r[0] * d[1] - r[1] * d[0]];
                for k in 0..3 {
                    let (lin, ang) = (d[k], cross[k]);
                    if a == 0 {
                        jn[(i, 6 * b + k)] = lin;
                        jn[(i, 6 * b + 3 + k)] = ang;
                    } else {
                        jt[(2 * i + a - 1, 6 * b + k)] = lin;
                        jt[(2 * i + a - 1, 6 * b + 3 + k)] = ang;
                    }
                }
            }
        }
    }
    let h = 0.01;
    let tau = DVector::from_fn(n, |r, _| if r % 6 == 2 { -9.81 } else { 2.0 * lcg(&mut s) });
    let v0 = DVector::from_fn(n, |_, _| 0.3 * lcg(&mut s));
    let phi = DVector::from_fn(nc, |_, _| 1e-3 * (1.0 + lcg(&mut s)));
    let mu = DVector::from_element(nc, 0.5);
    let models = (0..nc)
        .map(|i| {
            [
                ContactModel::SecondOrderCone,
                ContactModel::SecondOrderCone,
                ContactModel::Linear,
                ContactModel::Impact,
            ][i % 4]
        })
        .collect();
    let _ = h;
    Data { m, v0, tau, jn, jt, phi, mu, models }
}

impl Data {
    fn problem(&self) -> IpmProblem<'_> {
        IpmProblem {
            data: IpmData::Dense { m: self.m.as_view(), jn: self.jn.as_view(), jt: self.jt.as_view() },
            v0: self.v0.as_view(),
            tau: self.tau.as_view(),
            h: 0.01,
            phi: self.phi.as_view(),
            mu: self.mu.as_view(),
            models: &self.models,
            vt_offset: None,
        }
    }
}

#[test]
fn repeated_solves_allocate_nothing() {
    // Sizes on both sides of the blocked-LU threshold (n = 64): 24 and 96 velocities.
    for (bodies, mode, warm, fixed) in [
        (4, NewtonSolve::Condensed, false, 0.0),
        (4, NewtonSolve::Dense, true, 0.0),
        (16, NewtonSolve::Condensed, false, 0.0),
        (16, NewtonSolve::Condensed, true, 1e-4),
    ] {
        let d = data(bodies, 7 + bodies as u64);
        let params =
            IpmParameters { newton_solve: mode, warm_start: warm, fixed_kappa: fixed, ..Default::default() };
        let mut s = IpmSolver::new(params).unwrap();
        let p = d.problem();
        // Grow the workspace: the first solve allocates (which also shows the counter works).
        let first = allocations_during(|| assert_eq!(s.solve(&p).unwrap(), IpmOutcome::Converged));
        assert!(first > 0, "the first solve must grow the workspace");
        s.compute_sensitivities(&p).unwrap();
        let repeated = allocations_during(|| {
            for _ in 0..3 {
                assert_eq!(s.solve(&p).unwrap(), IpmOutcome::Converged);
                s.compute_sensitivities(&p).unwrap();
                assert!(!s.velocities().is_empty() && !s.impulses().is_empty());
            }
        });
        assert_eq!(
            repeated, 0,
            "bodies {bodies} {mode:?} warm {warm} fixed {fixed}: allocations in repeated solves"
        );
    }
}

#[test]
fn repeated_block_solves_allocate_nothing() {
    // stack5: one island of 5 trees, 30 dofs (the sparse factorization starts at 30 dofs and
    // two trees); pile50 t1.0: islands of up to 300 dofs; slide_box: a one-tree island (dense).
    // At the defaults and at the engine preset (its per-tree Delassus diagonals, §11.7).
    for (name, prm) in ["stack5_jitter_seed1_t1.0", "pile50_seed1_t1.0", "slide_box_v2.0_t0.001"]
        .into_iter()
        .flat_map(|n| [(n, IpmParameters::default()), (n, IpmParameters::engine())])
    {
        let sc = scene(name);
        let b = from_scene(&sc);
        let phi = DVector::from_iterator(sc.nc(), sc.contacts.iter().map(|c| c.phi));
        let tau = (&b.p_star - &b.m * &b.v0) / b.dt;
        let models = vec![ContactModel::SecondOrderCone; sc.nc()];
        let problem = IpmProblem {
            data: IpmData::Blocks(b.system()),
            v0: b.v0.as_view(),
            tau: tau.as_view(),
            h: b.dt,
            phi: phi.as_view(),
            mu: b.mu.as_view(),
            models: &models,
            vt_offset: None,
        };
        let mut s = IpmSolver::new(prm).unwrap();
        let mut outcome = None;
        let first = allocations_during(|| outcome = Some(s.solve(&problem).unwrap()));
        assert_eq!(outcome, Some(IpmOutcome::Converged), "{name}");
        assert!(first > 0, "{name}: the first solve must grow the workspace");
        let v = s.velocities().to_vec();
        let repeated = allocations_during(|| {
            for _ in 0..3 {
                assert_eq!(s.solve(&problem).unwrap(), IpmOutcome::Converged);
                s.solve_with_guess(&problem, b.v0.as_view()).unwrap();
            }
        });
        assert_eq!(repeated, 0, "{name}: allocations in repeated block solves");
        assert_eq!(s.velocities(), &v[..], "{name}: repeated solves give the same answer");
    }
}

/// Warm start by contact id (`docs/ipm.md` §11.5): setting the ids again and solving allocates
/// nothing once the id store and the previous solution have grown, the ids in another order
/// included (the by-id lookup works in place).
#[test]
fn warm_start_by_contact_id_allocates_nothing() {
    let d = data(8, 11);
    let nc = 32;
    let params = IpmParameters { warm_start: true, ..Default::default() };
    let mut s = IpmSolver::new(params).unwrap();
    let p = d.problem();
    let ids: Vec<u64> = (0..nc as u64).map(|i| 5 + 3 * i).collect();
    let mut shuffled = ids.clone();
    shuffled.reverse();
    s.set_contact_ids(Some(&ids)).unwrap();
    let first = allocations_during(|| {
        s.solve(&p).unwrap();
        s.solve(&p).unwrap();
    });
    assert!(first > 0, "the first solves must grow the workspace");
    let repeated = allocations_during(|| {
        for k in 0..4 {
            // Same contacts named in two orders: only the ids' lookup changes, not the sizes.
            s.set_contact_ids(Some(if k % 2 == 0 { &ids } else { &shuffled })).unwrap();
            s.solve(&p).unwrap();
            assert!(s.velocities().iter().all(|x| x.is_finite()));
        }
    });
    assert_eq!(repeated, 0, "allocations in warm-started solves by contact id");
}

/// The threaded path (issue 31 item 1): block solves with 2 and 4 threads allocate nothing once
/// grown, on this thread and on the pool's workers.
#[test]
fn repeated_threaded_block_solves_allocate_nothing() {
    let _pool_tests = crate::counting_alloc::POOL_TESTS.lock().unwrap_or_else(|e| e.into_inner());
    for (name, threads) in ["pile50_seed1_t1.0", "arm7_pile30_seed1_t1.0", "pile100_seed1_t1.0"]
        .into_iter()
        .flat_map(|n| [(n, 2), (n, 4)])
    {
        let scene = support::ipm_blocks::IpmScene::new(&scene(name));
        let problem = scene.problem(true);
        let mut s =
            IpmSolver::new(IpmParameters { num_threads: threads, ..IpmParameters::engine() }).unwrap();
        let first = allocations_with_workers_during(|| {
            s.solve(&problem).unwrap();
        });
        assert!(first > 0, "{name}: the first solve grows the workspace and starts the pool");
        // From the second solve on, nothing (faer's per-thread product buffers are grown when
        // the pool starts; see tamsi_alloc's threaded test).
        let v = s.velocities().to_vec();
        let repeated = allocations_with_workers_during(|| {
            for _ in 0..5 {
                s.solve(&problem).unwrap();
            }
        });
        assert_eq!(repeated, 0, "{name}, {threads} threads: allocations in repeated block solves");
        assert_eq!(s.velocities(), &v[..], "{name}: repeated solves give the same answer");
    }
}

/// The Delassus data form (`IpmData::Delassus`, `docs/ipm.md` §11.10) on the boxes' contact-space
/// problem `W = J M⁻¹ Jᵀ` (block-sparse: only the contacts of one box couple; 192 unknowns take
/// the sparse LU, 24 the dense one), at the defaults with sensitivities and at the tight setting
/// (exact candidates with `v` eliminated).
#[test]
fn repeated_delassus_solves_allocate_nothing() {
    for (bodies, tight) in [(2, false), (16, false), (2, true), (16, true)] {
        let d = data(bodies, 11 + bodies as u64);
        let nc = d.phi.len();
        let minv = d.m.clone().try_inverse().unwrap();
        let mut jfull = DMatrix::zeros(3 * nc, d.m.nrows());
        for i in 0..nc {
            jfull.row_mut(3 * i).copy_from(&d.jn.row(i));
            jfull.row_mut(3 * i + 1).copy_from(&d.jt.row(2 * i));
            jfull.row_mut(3 * i + 2).copy_from(&d.jt.row(2 * i + 1));
        }
        let w = &jfull * &minv * jfull.transpose();
        let q = &jfull * (&d.v0 + 0.01 * &minv * &d.tau);
        let tau = DVector::zeros(3 * nc);
        let models = if tight { vec![ContactModel::SecondOrderCone; nc] } else { d.models.clone() };
        let p = IpmProblem {
            data: IpmData::Delassus { w: w.as_view() },
            v0: q.as_view(),
            tau: tau.as_view(),
            h: 0.01,
            phi: d.phi.as_view(),
            mu: d.mu.as_view(),
            models: &models,
            vt_offset: None,
        };
        let params = if tight { IpmParameters::tight() } else { IpmParameters::default() };
        let mut s = IpmSolver::new(params).unwrap();
        let mut outcome = None;
        let first = allocations_during(|| outcome = Some(s.solve(&p).unwrap()));
        assert!(first > 0, "the first solve must grow the workspace");
        let outcome = outcome.unwrap();
        assert_eq!(outcome, IpmOutcome::Converged, "bodies {bodies} tight {tight}");
        if !tight {
            s.compute_sensitivities(&p).unwrap();
        }
        let repeated = allocations_during(|| {
            for _ in 0..3 {
                assert_eq!(s.solve(&p).unwrap(), outcome);
                if !tight {
                    s.compute_sensitivities(&p).unwrap();
                }
            }
        });
        assert_eq!(repeated, 0, "bodies {bodies} tight {tight}: allocations in repeated solves");
    }
}
