//! Drake-style C++ against the wrapper (`tests/c/drake_style.cpp`, with a second translation
//! unit): code written as inside `drake::multibody` — `TamsiSolver<double>`, `EigenPtr` setters
//! fed with fixed-size matrices, `Map`s and blocks, const `SolveWithGuess`/`ResizeIfNeeded`/
//! getters, `VectorBlock` getters, `TamsiSolverIterationStats`,
//! `internal::TalsLimiter<double>::CalcAlpha` — compiles with only the include and the namespace
//! changed, warnings as errors, and runs (also under valgrind and ASan/UBSan) with every value
//! checked: the README puck (v = 0.95 m/s), Drake's rolling cylinder, Drake's limiter cases.
//! And what must not compile does not: another scalar type, a row-major matrix.
//!
//! The LCP wrapper the same way (`tests/c/lcp_drake_style.cpp`, with a second translation unit):
//! code written as inside `drake::solvers` — `MobyLcpSolver` and `UnrevisedLemkeSolver<double>`
//! called with fixed-size matrices, row vectors, Maps, blocks, row-major matrices and
//! `Eigen::MatrixBase<Derived>` expressions, Drake's solve signatures and statics, usage errors
//! caught as `std::logic_error` — compiles and runs with every value checked against answers
//! worked by hand.

use crate::c_support;

use c_support::{compiler, eigen_include, include_dir, out_dir, skipped};

#[test]
fn drake_style_code_compiles_and_runs() {
    let Some(eigen) = eigen_include() else {
        return skipped("Eigen (libeigen3-dev) not installed");
    };
    let isystem = eigen.display().to_string();
    c_support::run_cpp_wrapper(
        "drake_style.cpp",
        "drake_style_second.cpp",
        "drake-style",
        &["-isystem", &isystem],
        "drake style: ",
    );
}

#[test]
fn lcp_drake_style_code_compiles_and_runs() {
    let Some(eigen) = eigen_include() else {
        return skipped("Eigen (libeigen3-dev) not installed");
    };
    let isystem = eigen.display().to_string();
    c_support::run_cpp_wrapper(
        "lcp_drake_style.cpp",
        "lcp_drake_style_second.cpp",
        "lcp-drake-style",
        &["-isystem", &isystem],
        "lcp drake style: ",
    );
}

/// Compiles `body` (inside `int main()`, after the wrapper's include) and returns the compiler's
/// diagnostics; panics if it compiles.
fn compile_error(name: &str, body: &str) -> String {
    let eigen = eigen_include().unwrap();
    let dir = out_dir(name);
    let src = dir.join("bad.cpp");
    std::fs::write(&src, format!("#include \"contact_solvers.hpp\"\nint main() {{\n{body}\n}}\n")).unwrap();
    let out = compiler(true)
        .args(["-std=c++17", "-c", "-o"])
        .arg(dir.join("bad.o"))
        .arg("-I")
        .arg(include_dir())
        .arg("-isystem")
        .arg(eigen)
        .arg(&src)
        .output()
        .expect("compiler runs");
    assert!(!out.status.success(), "{name} compiled:\n{body}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn other_scalars_and_row_major_matrices_are_compile_errors() {
    if eigen_include().is_none() {
        return skipped("Eigen (libeigen3-dev) not installed");
    }
    let err = compile_error(
        "drake-style-float",
        "cts::TamsiSolver<float> solver(3);\nreturn solver.num_velocities();",
    );
    assert!(err.contains("cts::TamsiSolver<T> exists for T = double only"), "{err}");

    let err = compile_error(
        "drake-style-row-major",
        "const Eigen::Matrix<double, 3, 3, Eigen::RowMajor> M = Eigen::Matrix3d::Identity();\n\
         const Eigen::MatrixXd Jn(0, 3), Jt(0, 3);\n\
         const Eigen::VectorXd p(3), none(0);\n\
         cts::TamsiSolver<double> solver(3);\n\
         solver.SetOneWayCoupledProblemData(&M, &Jn, &Jt, &p, &none, &none);",
    );
    assert!(err.contains("pass a column-major matrix"), "{err}");

    let err = compile_error(
        "lcp-drake-style-float",
        "cts::UnrevisedLemkeSolver<float> solver;\nreturn solver.get_num_pivots();",
    );
    assert!(err.contains("cts::UnrevisedLemkeSolver<T> exists for T = double only"), "{err}");

    // A fixed-size matrix given as q is refused by its type.
    let err = compile_error(
        "lcp-drake-style-matrix-q",
        "const Eigen::Matrix2d M = Eigen::Matrix2d::Identity();\n\
         Eigen::VectorXd z;\n\
         cts::MobyLcpSolver solver;\n\
         return solver.SolveLcpLemke(M, M, &z) ? 0 : 1;",
    );
    assert!(err.contains("static assert"), "{err}");
}
