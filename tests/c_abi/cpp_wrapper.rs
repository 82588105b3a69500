//! The header-only C++ wrapper (`include/contact_solvers.hpp`): two translation units linked
//! together (no ODR violations), with Eigen and without (`CTS_NO_EIGEN`), warnings as errors;
//! usage errors throw `cts::Error`, outcomes are returned, results match Drake's reference.
//! The block-sparse setters and the TAMSI sensitivities have their own programs
//! (`tests/c/tamsi_blocks_wrapper.cpp`, `tests/c/tamsi_sensitivities_wrapper.cpp`).

use crate::c_support;

use c_support::{eigen_include, skipped};

fn build_and_run(name: &str, extra: &[&str], expect: &str) {
    c_support::run_cpp_wrapper("wrapper_main.cpp", "wrapper_second.cpp", name, extra, expect);
}

#[test]
fn wrapper_without_eigen() {
    build_and_run("wrapper-std", &["-DCTS_NO_EIGEN"], "without Eigen");
}

#[test]
fn wrapper_with_eigen() {
    let Some(eigen) = eigen_include() else {
        return skipped("Eigen (libeigen3-dev) not installed");
    };
    let isystem = eigen.display().to_string();
    build_and_run("wrapper-eigen", &["-isystem", &isystem], "with Eigen");
}

/// The block-sparse TAMSI setters of the wrapper (`tests/c/tamsi_blocks_wrapper.cpp`):
/// `cts::BlockSparseData` from containers and raw pointers, block vs dense, errors.
#[test]
fn block_setters_without_eigen() {
    c_support::run_cpp_wrapper(
        "tamsi_blocks_wrapper.cpp",
        "wrapper_second.cpp",
        "blocks-std",
        &["-DCTS_NO_EIGEN"],
        "without Eigen",
    );
}

#[test]
fn block_setters_with_eigen() {
    let Some(eigen) = eigen_include() else {
        return skipped("Eigen (libeigen3-dev) not installed");
    };
    let isystem = eigen.display().to_string();
    c_support::run_cpp_wrapper(
        "tamsi_blocks_wrapper.cpp",
        "wrapper_second.cpp",
        "blocks-eigen",
        &["-isystem", &isystem],
        "with Eigen",
    );
}

/// The wrapper's TAMSI sensitivities (`tests/c/tamsi_sensitivities_wrapper.cpp`): shapes, central
/// differences, the product against gᵀ·J, one-way data, errors.
#[test]
fn tamsi_sensitivities_without_eigen() {
    c_support::run_cpp_wrapper(
        "tamsi_sensitivities_wrapper.cpp",
        "wrapper_second.cpp",
        "tamsi-sens-std",
        &["-DCTS_NO_EIGEN"],
        "without Eigen",
    );
}

#[test]
fn tamsi_sensitivities_with_eigen() {
    let Some(eigen) = eigen_include() else {
        return skipped("Eigen (libeigen3-dev) not installed");
    };
    let isystem = eigen.display().to_string();
    c_support::run_cpp_wrapper(
        "tamsi_sensitivities_wrapper.cpp",
        "wrapper_second.cpp",
        "tamsi-sens-eigen",
        &["-isystem", &isystem],
        "with Eigen",
    );
}
