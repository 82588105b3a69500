//! Reader of `tests/data/tamsi_bench_cases.txt.gz`: TAMSI problems with Drake's results (format
//! `TAMSI_CASES 1`, described in `tests/data/README.md`). Shared by the tests, `benches/tamsi.rs`
//! and `examples/profile_tamsi.rs`.

use std::collections::HashMap;

use contact_solvers::tamsi::{TamsiParameters, TamsiProblem};
use nalgebra::{DMatrixView, DVectorView};
use std::io::Read;
use std::path::{Path, PathBuf};

/// One problem and Drake's result on it. Matrices are column-major with leading dimension =
/// rows.
#[derive(Debug, Clone)]
pub struct BenchCase {
    pub name: String,
    pub nv: usize,
    pub nc: usize,
    /// 1 = one-way, 2 = two-way.
    pub scheme: u32,
    pub dt: f64,
    pub stiction_tolerance: f64,
    pub max_iterations: usize,
    pub relative_tolerance: f64,
    pub theta_max: f64,
    /// Whether Drake's outcome is success.
    pub check: bool,
    pub vectors: HashMap<String, Vec<f64>>,
    pub result: i32,
    pub num_iterations: usize,
    pub residuals: Vec<f64>,
    pub res_abs_tol: f64,
}

impl BenchCase {
    pub fn get(&self, key: &str) -> &[f64] {
        self.vectors.get(key).unwrap_or_else(|| panic!("{}: no '{key}'", self.name))
    }

    /// The case's vector `key` as a view.
    pub fn vector(&self, key: &str) -> DVectorView<'_, f64> {
        let v = self.get(key);
        DVectorView::from_slice(v, v.len())
    }

    /// The problem as the file gives it (one-way or two-way coupled).
    pub fn problem(&self) -> TamsiProblem<'_> {
        let (nv, nc) = (self.nv, self.nc);
        let (m, jn, jt) = (
            DMatrixView::from_slice(self.get("M"), nv, nv),
            DMatrixView::from_slice(self.get("Jn"), nc, nv),
            DMatrixView::from_slice(self.get("Jt"), 2 * nc, nv),
        );
        let v = |k| self.vector(k);
        match self.scheme {
            1 => TamsiProblem::one_way(m, jn, jt, v("p_star"), v("fn"), v("mu")),
            _ => TamsiProblem::two_way(
                m,
                jn,
                jt,
                v("p_star"),
                v("fn0"),
                v("stiffness"),
                v("dissipation"),
                v("mu"),
            ),
        }
        .unwrap_or_else(|e| panic!("{}: {e}", self.name))
    }

    /// The solver parameters Drake ran the case with.
    pub fn parameters(&self) -> TamsiParameters {
        TamsiParameters {
            stiction_tolerance: self.stiction_tolerance,
            max_iterations: self.max_iterations,
            relative_tolerance: self.relative_tolerance,
            theta_max: self.theta_max,
            ..Default::default()
        }
    }
}

/// The repository's benchmark file (gzip-compressed).
pub const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/tamsi_bench_cases.txt.gz");

/// Environment variable that points a benchmark or profiling run (never a test) at another
/// `TAMSI_CASES 1` file, plain or gzip-compressed (by its `.gz` suffix).
pub const ENV_OVERRIDE: &str = "CONTACT_SOLVERS_TAMSI_CASES";

/// Reads every case of the repository's file. Panics with the path when it is missing or
/// malformed: the reference data is part of the test, never skipped.
pub fn load() -> Vec<BenchCase> {
    load_from(Path::new(PATH))
}

/// For benchmarks and profiling: the file named by `CONTACT_SOLVERS_TAMSI_CASES` when it is set,
/// else the repository's file.
pub fn load_for_benchmark() -> Vec<BenchCase> {
    match std::env::var_os(ENV_OVERRIDE) {
        Some(p) => load_from(&PathBuf::from(p)),
        None => load(),
    }
}

/// Reads every case of a `TAMSI_CASES 1` file, gzip-decompressing it when its name ends in `.gz`.
pub fn load_from(path: &Path) -> Vec<BenchCase> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("cannot read {} ({e})", path.display()));
    let mut text = String::new();
    let read = if path.extension().is_some_and(|e| e == "gz") {
        flate2::read::GzDecoder::new(file).read_to_string(&mut text)
    } else {
        std::io::BufReader::new(file).read_to_string(&mut text)
    };
    read.unwrap_or_else(|e| panic!("cannot read {} ({e})", path.display()));
    parse(&text)
}

fn parse(text: &str) -> Vec<BenchCase> {
    let mut tok = text.split_whitespace();
    let mut next = || tok.next().expect("unexpected end of file");
    assert_eq!(next(), "TAMSI_CASES");
    assert_eq!(next(), "1", "format version");
    let n: usize = next().parse().unwrap();
    let num = |s: &str| -> f64 { s.parse().unwrap_or_else(|_| panic!("not a number: {s}")) };
    let mut cases = Vec::with_capacity(n);
    for _ in 0..n {
        assert_eq!(next(), "solve");
        let name = next().to_string();
        let mut case = BenchCase {
            name,
            nv: 0,
            nc: 0,
            scheme: 0,
            dt: 0.0,
            stiction_tolerance: 0.0,
            max_iterations: 0,
            relative_tolerance: 0.0,
            theta_max: 0.0,
            check: false,
            vectors: HashMap::new(),
            result: -1,
            num_iterations: 0,
            residuals: Vec::new(),
            res_abs_tol: 0.0,
        };
        loop {
            let key = next();
            match key {
                "nv" => {
                    case.nv = next().parse().unwrap();
                    assert_eq!(next(), "nc");
                    case.nc = next().parse().unwrap();
                    assert_eq!(next(), "scheme");
                    case.scheme = next().parse().unwrap();
                    assert_eq!(next(), "dt");
                    case.dt = num(next());
                }
                "params" => {
                    case.stiction_tolerance = num(next());
                    case.max_iterations = next().parse().unwrap();
                    case.relative_tolerance = num(next());
                    case.theta_max = num(next());
                }
                "check" => case.check = next() == "1",
                "result" => {
                    case.result = next().parse().unwrap();
                    case.num_iterations = next().parse().unwrap();
                }
                "residuals" => {
                    let count: usize = next().parse().unwrap();
                    case.residuals = (0..count).map(|_| num(next())).collect();
                }
                "res_abs_tol" => case.res_abs_tol = num(next()),
                "end" => break,
                _ => {
                    let (nv, nc) = (case.nv, case.nc);
                    let len = match key {
                        "M" => nv * nv,
                        "Jn" => nc * nv,
                        "Jt" => 2 * nc * nv,
                        "p_star" | "guess" | "v" | "tau_f" | "tau" => nv,
                        "fn" | "fn0" | "stiffness" | "dissipation" | "mu" | "vn" | "fn_out" => nc,
                        "vt" | "ft" => 2 * nc,
                        _ => panic!("unknown keyword {key}"),
                    };
                    let values = (0..len).map(|_| num(next())).collect();
                    case.vectors.insert(key.to_string(), values);
                }
            }
        }
        cases.push(case);
    }
    cases
}
