//! The header-only C++ wrapper (`include/contact_solvers.hpp`): two translation units linked
//! together (no ODR violations), with Eigen and without (`CTS_NO_EIGEN`), warnings as errors;
//! usage errors throw `cts::Error`, outcomes are returned, results match Drake's reference.

mod c_support;

use c_support::{Link, build, eigen_include, have_sanitizers, have_valgrind, out_dir, run_ok, skipped};

fn sources() -> [std::path::PathBuf; 2] {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c");
    [dir.join("wrapper_main.cpp"), dir.join("wrapper_second.cpp")]
}

fn build_and_run(name: &str, extra: &[&str], expect: &str) {
    let [a, b] = sources();
    let flags = [&["-std=c++17", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-g"][..], extra].concat();
    let exe = out_dir(name).join("wrapper");
    build(&[&a, &b], &exe, true, &flags, Link::Shared);
    let out = run_ok(&exe, false);
    assert!(out.contains(expect) && out.contains("0 failures"), "{out}");
    if have_valgrind() {
        run_ok(&exe, true);
    } else {
        skipped("valgrind not installed");
    }
    if have_sanitizers() {
        let exe = out_dir(&format!("{name}-asan")).join("wrapper");
        let flags = [&flags[..], c_support::SANITIZE].concat();
        build(&[&a, &b], &exe, true, &flags, Link::Shared);
        assert!(run_ok(&exe, false).contains("0 failures"));
    } else {
        skipped("AddressSanitizer/UBSan runtime not installed");
    }
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
