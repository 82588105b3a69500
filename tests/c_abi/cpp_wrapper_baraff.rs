//! `cts::BaraffSolver` of the header-only C++ wrapper (`include/contact_solvers.hpp`): two
//! translation units linked together (no ODR violations), with Eigen and without
//! (`CTS_NO_EIGEN`), warnings as errors, plain, under valgrind and under ASan/UBSan; usage errors
//! throw `cts::Error`, outcomes are returned, results match `docs/baraff.md` §11.

use crate::c_support;

use c_support::{eigen_include, skipped};

fn build_and_run(name: &str, extra: &[&str], expect: &str) {
    c_support::run_cpp_wrapper("baraff_wrapper.cpp", "baraff_wrapper_second.cpp", name, extra, expect);
}

#[test]
fn baraff_wrapper_without_eigen() {
    build_and_run("baraff-wrapper-std", &["-DCTS_NO_EIGEN"], "without Eigen");
}

#[test]
fn baraff_wrapper_with_eigen() {
    let Some(eigen) = eigen_include() else {
        return skipped("Eigen (libeigen3-dev) not installed");
    };
    let isystem = eigen.display().to_string();
    build_and_run("baraff-wrapper-eigen", &["-isystem", &isystem], "with Eigen");
}
