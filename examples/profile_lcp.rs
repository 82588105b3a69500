//! Repeats one unrevised Lemke solve of a Siconos LCP file, for profilers (callgrind, perf).
//! `cargo run --release --example profile_lcp -- <file> <reps>`: `<file>` is a name in
//! `tests/data/siconos/lcp/` (default `lcp_exp_murty2.dat`) or the path of another dense Siconos
//! LCP file.
use contact_solvers::lcp::{LcpProblem, UnrevisedLemkeSolver};
use nalgebra::{DMatrix, DVector};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).map(String::as_str).unwrap_or("lcp_exp_murty2.dat");
    let reps: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10000);
    let path = if std::path::Path::new(name).is_file() {
        name.to_owned()
    } else {
        format!("{}/tests/data/siconos/lcp/{name}", env!("CARGO_MANIFEST_DIR"))
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let t: Vec<&str> = text.split_whitespace().collect();
    let n: usize = t[0].parse().unwrap();
    let v: Vec<f64> = t[6..6 + n * n + n].iter().map(|s| s.parse().unwrap()).collect();
    let m = DMatrix::from_column_slice(n, n, &v[..n * n]);
    let q = DVector::from_column_slice(&v[n * n..]);
    let p = LcpProblem::new(m.as_view(), q.as_view()).unwrap();
    let mut s = UnrevisedLemkeSolver::new();
    let start = std::time::Instant::now();
    for _ in 0..reps {
        s.clear_warm_start();
        std::hint::black_box(s.solve(std::hint::black_box(&p)));
    }
    let us = start.elapsed().as_secs_f64() * 1e6 / reps as f64;
    println!("{name}: {:?} in {} pivots, {us:.3} µs/solve", s.outcome(), s.num_pivots());
}
