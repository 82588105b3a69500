//! Interior-point solver benchmarks (`docs/ipm.md`): boxes resting on the ground with 4 SOC
//! corner contacts each, contacts = 4, 16, 64 on nv = 6·bodies (bodies = contacts / 4), one
//! solve from the same data per sample (the workspace is grown before timing).
//!
//! Run: `cargo bench --bench ipm -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;

use contact_solvers::ipm::{ContactModel, IpmData, IpmParameters, IpmProblem, IpmSolver, NewtonSolve};
use criterion::{Criterion, criterion_group, criterion_main};
use nalgebra::{DMatrix, DVector};

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

fn lcg(s: &mut u64) -> f64 {
    *s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    ((*s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
}

/// `bodies` unit boxes (mass 1, inertia 0.1) just above the ground, sliding a little, with
/// their four bottom corners in contact.
fn boxes(bodies: usize) -> Data {
    let mut s = 12345u64;
    let (n, nc) = (6 * bodies, 4 * bodies);
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
            let r = [if c & 1 == 0 { 0.5 } else { -0.5 }, if c & 2 == 0 { 0.5 } else { -0.5 }, -0.5];
            for (a, d) in [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]].iter().enumerate() {
                let cross = [r[1] * d[2] - r[2] * d[1], r[2] * d[0] - r[0] * d[2], r[0] * d[1] - r[1] * d[0]];
                for k in 0..3 {
                    let (row, mat) = if a == 0 { (i, &mut jn) } else { (2 * i + a - 1, &mut jt) };
                    mat[(row, 6 * b + k)] = d[k];
                    mat[(row, 6 * b + 3 + k)] = cross[k];
                }
            }
        }
    }
    Data {
        tau: DVector::from_fn(n, |r, _| if r % 6 == 2 { -9.81 } else { 2.0 * lcg(&mut s) }),
        v0: DVector::from_fn(n, |_, _| 0.3 * lcg(&mut s)),
        phi: DVector::from_fn(nc, |_, _| 1e-3 * (1.0 + lcg(&mut s))),
        mu: DVector::from_element(nc, 0.5),
        models: vec![ContactModel::SecondOrderCone; nc],
        m,
        jn,
        jt,
    }
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

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("ipm");
    for contacts in [4usize, 16, 64] {
        let d = boxes(contacts / 4);
        let p = d.problem();
        let nv = 6 * contacts / 4;
        for (tag, params) in [
            ("default", IpmParameters::default()),
            ("btol1e-8", IpmParameters { btol: 1e-8, rtol: 1e-8, ..Default::default() }),
        ] {
            let mut s = IpmSolver::new(params).unwrap();
            let out = s.solve(&p).unwrap();
            eprintln!("ipm nc {contacts} nv {nv} {tag}: {out:?}, {} iterations", s.stats().iterations);
            group.bench_function(format!("solve_{tag}/nc{contacts}_nv{nv}"), |b| {
                b.iter(|| black_box(s.solve(black_box(&p)).unwrap()))
            });
        }
        if contacts <= 16 {
            let params = IpmParameters { newton_solve: NewtonSolve::Dense, ..Default::default() };
            let mut s = IpmSolver::new(params).unwrap();
            s.solve(&p).unwrap();
            group.bench_function(format!("solve_dense_newton/nc{contacts}_nv{nv}"), |b| {
                b.iter(|| black_box(s.solve(black_box(&p)).unwrap()))
            });
        }
        let mut s = IpmSolver::new(IpmParameters::default()).unwrap();
        s.solve(&p).unwrap();
        s.compute_sensitivities(&p).unwrap();
        group.bench_function(format!("sensitivities/nc{contacts}_nv{nv}"), |b| {
            b.iter(|| s.compute_sensitivities(black_box(&p)).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
