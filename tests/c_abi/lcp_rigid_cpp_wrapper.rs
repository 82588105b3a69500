//! The C++ wrapper's LCP and rigid constraint-solver classes (`cts::LcpSolver`,
//! `cts::MobyLcpSolver`, `cts::UnrevisedLemkeSolver`, `cts::ConstraintSolver` and its problem
//! data): `tests/c/lcp_rigid_wrapper.cpp` linked with a second translation unit (no ODR
//! violations), with Eigen and without (`CTS_NO_EIGEN`), warnings as errors, then under valgrind
//! and ASan/UBSan when present.

use crate::c_support;

use c_support::{eigen_include, skipped};

fn build_and_run(name: &str, extra: &[&str], expect: &str) {
    c_support::run_cpp_wrapper("lcp_rigid_wrapper.cpp", "wrapper_second.cpp", name, extra, expect);
}

#[test]
fn lcp_rigid_wrapper_without_eigen() {
    build_and_run("lcp-rigid-wrapper-std", &["-DCTS_NO_EIGEN"], "without Eigen");
}

#[test]
fn lcp_rigid_wrapper_with_eigen() {
    let Some(eigen) = eigen_include() else {
        return skipped("Eigen (libeigen3-dev) not installed");
    };
    let isystem = eigen.display().to_string();
    build_and_run("lcp-rigid-wrapper-eigen", &["-isystem", &isystem], "with Eigen");
}
