//! Baraff pivoting solver benchmarks: random contact problems with `rows` = 12, 48, 192 (a third
//! of them normals, each with two pyramid friction rows, μ = 0.5), Gaussian Jacobian rows on
//! `rows` generalized coordinates, diagonal M in [0.5, 2], `b = J M⁻¹ τ` (`docs/baraff.md` §10's
//! construction).
//!
//! * `baraff_solve/<rows>`: the matrix interface (`A`, `b` given), one warm solver.
//! * `baraff_solve_model/<rows>`: the model interface, composition `A = J M⁻¹ Jᵀ` included.

use std::hint::black_box;

use contact_solvers::baraff::{BaraffParameters, BaraffSolver, MatrixProblem, ModelProblem, RowKind, Rows};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nalgebra::{DMatrix, DVector};

struct Rng(u64);
impl Rng {
    fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn normal(&mut self) -> f64 {
        let u1 = self.uniform().max(1e-300);
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }
}

struct Problem {
    mass: DMatrix<f64>,
    j: DMatrix<f64>,
    tau: DVector<f64>,
    a: DMatrix<f64>,
    b: DVector<f64>,
    rows: Vec<RowKind>,
}

fn problem(rows: usize, seed: u64) -> Problem {
    let mut rng = Rng(seed);
    let n = rows;
    let mut kinds = Vec::with_capacity(rows);
    for c in 0..rows / 3 {
        kinds.push(RowKind::Normal);
        kinds.push(RowKind::Friction { normal: 3 * c, mu: 0.5 });
        kinds.push(RowKind::Friction { normal: 3 * c, mu: 0.5 });
    }
    let mass = DMatrix::from_diagonal(&DVector::from_fn(n, |_, _| 0.5 + 1.5 * rng.uniform()));
    let j = DMatrix::from_fn(rows, n, |_, _| rng.normal());
    let tau = DVector::from_fn(n, |_, _| rng.normal());
    let minv = mass.clone().try_inverse().unwrap();
    let a = &j * &minv * j.transpose();
    let b = &j * &minv * &tau;
    Problem { mass, j, tau, a, b, rows: kinds }
}

/// The first seed whose problem solves in one attempt with at least one pivot per contact (so
/// every timed solve is a complete, non-trivial one).
fn solvable(rows: usize) -> Problem {
    let params = BaraffParameters { reverse_retry: 0, ..BaraffParameters::default() };
    let mut s = BaraffSolver::new(params).unwrap();
    for seed in 1.. {
        let p = problem(rows, seed);
        let out = s
            .solve(&MatrixProblem { a: p.a.as_view(), b: p.b.as_view(), rows: Rows::Kinds(&p.rows) })
            .unwrap();
        if out.is_solved() && s.stats().pivots >= rows / 3 {
            return p;
        }
    }
    unreachable!()
}

fn bench(c: &mut Criterion) {
    let sizes = [12usize, 48, 192];
    let problems: Vec<Problem> = sizes.iter().map(|&r| solvable(r)).collect();

    let mut g = c.benchmark_group("baraff_solve");
    for p in &problems {
        let mut s = BaraffSolver::new(BaraffParameters::default()).unwrap();
        let mp = MatrixProblem { a: p.a.as_view(), b: p.b.as_view(), rows: Rows::Kinds(&p.rows) };
        s.solve(&mp).unwrap();
        g.bench_with_input(BenchmarkId::from_parameter(p.rows.len()), &mp, |bch, mp| {
            bch.iter(|| black_box(s.solve(black_box(mp)).unwrap()))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("baraff_solve_model");
    for p in &problems {
        let mut s = BaraffSolver::new(BaraffParameters::default()).unwrap();
        let mp = ModelProblem::forces(p.mass.as_view(), p.j.as_view(), Rows::Kinds(&p.rows), p.tau.as_view());
        s.solve_model(&mp).unwrap();
        g.bench_with_input(BenchmarkId::from_parameter(p.rows.len()), &mp, |bch, mp| {
            bch.iter(|| black_box(s.solve_model(black_box(mp)).unwrap()))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
