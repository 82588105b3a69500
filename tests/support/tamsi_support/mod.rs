//! Shared support of the TAMSI tests: Drake's test scenes, reference comparisons, a forward-mode
//! dual number for Drake's autodiff Jacobian check, and the benchmark-case reader.

pub mod backend;
pub mod bench_cases;
pub mod dual;
pub mod example_output;
pub mod reference;
pub mod scenes;

/// Drake's `kTolerance` in `tamsi_solver_test.cc`: 10·eps.
pub const K_TOL: f64 = 10.0 * f64::EPSILON;

/// `|a − b| ≤ tol·max(1, |b|)` for every entry (`docs/tamsi_cases.md` §0.2).
#[track_caller]
pub fn assert_rel(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (k, (a, b)) in got.iter().zip(want).enumerate() {
        assert!((a - b).abs() <= tol * b.abs().max(1.0), "{what}[{k}]: got {a:e}, want {b:e} (tol {tol:e})");
    }
}

/// Drake's `CompareMatrices` in absolute mode: `|a − b| ≤ tol` for every entry.
#[track_caller]
pub fn assert_abs(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (k, (a, b)) in got.iter().zip(want).enumerate() {
        assert!((a - b).abs() <= tol, "{what}[{k}]: got {a:e}, want {b:e} (abs tol {tol:e})");
    }
}

/// Drake's `CompareMatrices` in relative mode: `|a − b| ≤ tol·max(1, |a|, |b|)`.
#[track_caller]
pub fn assert_drake_relative(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (k, (a, b)) in got.iter().zip(want).enumerate() {
        let scale = 1f64.max(a.abs()).max(b.abs());
        assert!((a - b).abs() <= tol * scale, "{what}[{k}]: got {a:e}, want {b:e} (rel tol {tol:e})");
    }
}

/// Residual histories: entries above `1e-12·scale` (scale = largest reference entry) agree to
/// 1e-6 relative; smaller ones are round-off and are compared absolutely at that level.
#[track_caller]
pub fn assert_residuals(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "residual history length: got {got:?}, want {want:?}");
    let scale = want.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let floor = 1e-12 * scale;
    for (k, (a, b)) in got.iter().zip(want).enumerate() {
        if b.abs() > floor {
            assert!((a - b).abs() <= 1e-6 * b.abs(), "residual[{k}]: got {a:e}, want {b:e}");
        } else {
            assert!((a - b).abs() <= floor, "residual[{k}] (round-off): got {a:e}, want {b:e}");
        }
    }
}

/// Frobenius norm of a column-major matrix.
pub fn frobenius(m: &[f64]) -> f64 {
    m.iter().map(|x| x * x).sum::<f64>().sqrt()
}
