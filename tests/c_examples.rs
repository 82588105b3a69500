//! The C and C++ examples of `examples_c/` compile with warnings as errors, run, and print
//! Drake's reference values (`specs/tamsi_cases.md`); they also run clean under
//! AddressSanitizer/UBSan and valgrind when those are installed (CI installs them), and the C
//! example links statically as well.

mod c_support;
mod tamsi_support;

use std::path::PathBuf;

use c_support::{
    Link, build, eigen_include, examples_dir, have_sanitizers, have_valgrind, out_dir, run_ok, skipped,
};
use tamsi_support::example_output::{check_pizza_saver, check_rolling_cylinder};

const C_FLAGS: &[&str] = &["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-g"];
const CPP_FLAGS: &[&str] = &["-std=c++17", "-Wall", "-Wextra", "-Werror", "-g"];
const SANITIZE: &[&str] = &["-fsanitize=address,undefined", "-fno-omit-frame-pointer"];

fn rolling_cylinder_source() -> PathBuf {
    examples_dir().join("rolling_cylinder.c")
}

fn pizza_saver_source() -> PathBuf {
    examples_dir().join("pizza_saver.cpp")
}

#[test]
fn rolling_cylinder_c_prints_drakes_values() {
    let exe = out_dir("rolling-cylinder").join("rolling_cylinder");
    build(&[&rolling_cylinder_source()], &exe, false, C_FLAGS, Link::Shared);
    check_rolling_cylinder(&run_ok(&exe, false));
}

#[test]
fn rolling_cylinder_c_links_statically() {
    let exe = out_dir("rolling-cylinder-static").join("rolling_cylinder");
    build(&[&rolling_cylinder_source()], &exe, false, C_FLAGS, Link::Static);
    check_rolling_cylinder(&run_ok(&exe, false));
}

#[test]
fn rolling_cylinder_c_under_sanitizers_and_valgrind() {
    if have_sanitizers() {
        let exe = out_dir("rolling-cylinder-asan").join("rolling_cylinder");
        build(&[&rolling_cylinder_source()], &exe, false, &[C_FLAGS, SANITIZE].concat(), Link::Shared);
        check_rolling_cylinder(&run_ok(&exe, false));
    } else {
        skipped("AddressSanitizer/UBSan runtime not installed");
    }
    if have_valgrind() {
        let exe = out_dir("rolling-cylinder-valgrind").join("rolling_cylinder");
        build(&[&rolling_cylinder_source()], &exe, false, C_FLAGS, Link::Shared);
        check_rolling_cylinder(&run_ok(&exe, true));
    } else {
        skipped("valgrind not installed");
    }
}

fn pizza_flags(eigen: &std::path::Path) -> Vec<String> {
    let mut f: Vec<String> = CPP_FLAGS.iter().map(|s| s.to_string()).collect();
    f.push("-isystem".into());
    f.push(eigen.display().to_string());
    f
}

#[test]
fn pizza_saver_cpp_prints_drakes_values() {
    let Some(eigen) = eigen_include() else {
        return skipped("Eigen (libeigen3-dev) not installed");
    };
    let flags = pizza_flags(&eigen);
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let exe = out_dir("pizza-saver").join("pizza_saver");
    build(&[&pizza_saver_source()], &exe, true, &flags, Link::Shared);
    check_pizza_saver(&run_ok(&exe, false));
    if have_valgrind() {
        check_pizza_saver(&run_ok(&exe, true));
    } else {
        skipped("valgrind not installed");
    }
    if have_sanitizers() {
        let exe = out_dir("pizza-saver-asan").join("pizza_saver");
        build(&[&pizza_saver_source()], &exe, true, &[&flags[..], SANITIZE].concat(), Link::Shared);
        check_pizza_saver(&run_ok(&exe, false));
    } else {
        skipped("AddressSanitizer/UBSan runtime not installed");
    }
}
