//! The Octave/MATLAB MEX gateways (`examples_c/octave/cts_tamsi_mex.c`, `cts_lcp_mex.c`,
//! `cts_ipm_mex.c`, `cts_rigid_mex.c`, `cts_baraff_mex.c`) built
//! with `mkoctfile --mex` against the library this test run built, once with the separate-complex
//! API (`mxGetPr`, Octave's and MATLAB's default) and once with the interleaved one
//! (`mxGetDoubles`, `-R2018a` as with MATLAB's `mex -R2018a`), each running its script in
//! `octave-cli`: `test_cts_tamsi.m` (Drake's pizza-saver values (all three cases), the two-way
//! sliding cylinder, a non-success outcome, usage errors carrying the library's message, and a
//! batch equal to the single calls) and
//! `test_cts_lcp.m` (the README's LCP with every algorithm, Drake's Moby cases "trivial" and
//! "problem 1", a ray termination, options, usage errors), `test_cts_ipm.m` (`docs/ipm.md` §9's
//! point mass A2, sticking and slipping, an iteration cap, usage errors, a batch), `test_cts_rigid.m`
//! (`docs/rigid_cases.md`'s Rod2D cases §2.1, §2.2, §2.5, §3.2, §3.7 and §4.4 with Drake's
//! tolerances, LCP matrices and pivot counts, in the default mode and with Drake HEAD's
//! switches; usage errors) and `test_cts_baraff.m` (`docs/baraff.md` §11's B1, B3–B7 with the
//! spec's tolerances; usage errors).
//!
//! Needs `mkoctfile` and `octave-cli` (`.ci/install-deps tests` installs octave and octave-dev);
//! without them the test prints `skipped: …`.

use crate::c_support;

use std::path::Path;
use std::process::Command;

use c_support::{include_dir, lib_dir, out_dir, skipped};

/// The gateways: (name, checks in its `test_<name>.m`, i.e. the length of its `checks` list).
const GATEWAYS: [(&str, usize); 5] =
    [("cts_tamsi", 10), ("cts_lcp", 6), ("cts_ipm", 6), ("cts_rigid", 7), ("cts_baraff", 8)];

fn have(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().map(|o| o.status.success()).unwrap_or(false)
}

fn octave_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples_c/octave")
}

fn build_and_run(variant: &str, flags: &[&str], reads_with: &str) {
    for (gateway, checks) in GATEWAYS {
        build_and_run_gateway(gateway, checks, variant, flags, reads_with);
    }
}

fn build_and_run_gateway(gateway: &str, checks: usize, variant: &str, flags: &[&str], reads_with: &str) {
    let dir = out_dir(&format!("octave-mex-{gateway}-{variant}"));
    let shared = lib_dir().join("shared");
    let mex = dir.join(format!("{gateway}_mex.mex"));
    let out = Command::new("mkoctfile")
        .arg("--mex")
        .args(flags)
        .arg(format!("-I{}", include_dir().display()))
        .arg("-o")
        .arg(&mex)
        .arg(octave_dir().join(format!("{gateway}_mex.c")))
        .arg(format!("-L{}", shared.display()))
        .arg("-lcontact_solvers")
        .arg(format!("-Wl,-rpath,{}", shared.display()))
        // DT_RPATH wins over cargo's LD_LIBRARY_PATH (a stale library there), as in c_support.
        .arg("-Wl,--disable-new-dtags")
        // Warnings are errors for the gateway itself (Octave's headers are system headers).
        .env("CFLAGS", "-O1 -g -Wall -Wextra -Werror -std=c99")
        .current_dir(&dir)
        .output()
        .expect("mkoctfile runs");
    assert!(
        out.status.success(),
        "mkoctfile --mex {flags:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(mex.exists(), "{} not built", mex.display());
    // The API the gateway was compiled for: it reads its inputs with mxGetPr or mxGetDoubles.
    let nm = Command::new("nm").arg("-D").arg("--undefined-only").arg(&mex).output().expect("nm runs");
    let symbols = String::from_utf8_lossy(&nm.stdout);
    let reads: Vec<&str> = symbols
        .lines()
        .filter_map(|l| l.split_whitespace().last())
        .filter(|s| s.starts_with("mxGetDoubles") || s.starts_with("mxGetPr"))
        .collect();
    assert_eq!(reads, [reads_with], "{gateway} {variant}: the gateway reads with {reads:?}");

    let script =
        format!("addpath('{}'); addpath('{}'); test_{gateway}", dir.display(), octave_dir().display());
    let out = Command::new("octave-cli")
        .args(["--norc", "--no-history", "--quiet", "--no-window-system", "--eval", &script])
        .current_dir(&dir)
        .output()
        .expect("octave-cli runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "test_{gateway}.m ({variant}) failed ({:?}):\n{stdout}\n{stderr}",
        out.status
    );
    let last = stdout.lines().last().unwrap_or_default();
    assert_eq!(last, format!("{checks} passed, 0 failed"), "{gateway} ({variant}):\n{stdout}\n{stderr}");
}

#[test]
fn mex_gateway_separate_complex_api() {
    if !have("mkoctfile") || !have("octave-cli") {
        return skipped("mkoctfile/octave-cli not installed (apt-get install octave octave-dev)");
    }
    build_and_run("separate", &[], "mxGetPr");
}

#[test]
fn mex_gateway_interleaved_complex_api() {
    if !have("mkoctfile") || !have("octave-cli") {
        return skipped("mkoctfile/octave-cli not installed (apt-get install octave octave-dev)");
    }
    build_and_run("interleaved", &["-R2018a"], "mxGetDoubles");
}
