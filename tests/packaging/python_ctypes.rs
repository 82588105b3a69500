//! The Python ctypes binding, through the shim `examples_c/python/contact_solvers.py` that loads
//! the package `python/contact_solvers/` from the source tree, against the library this test run
//! built: its pytest suite (`examples_c/python/tests/`: Drake's TAMSI reference values,
//! usage errors, borrowing and array conversion, block-sparse data, the MuJoCo pile's physics,
//! the C bridge `mujoco_bridge.c` built with the system's `cc` against the MuJoCo wheel and
//! compared bit for bit with the Python bridge),
//! the rolling-cylinder example, whose printout is checked against Drake's values like the C
//! example's, the MuJoCo engine example (`mujoco_pile.py`) and the friction-estimation
//! example (`estimate_friction.py`, TAMSI sensitivities) run as programs.
//!
//! The interpreter is the one of the venv `.ci/install-deps tests` creates with numpy, pytest and
//! mujoco
//! (`<target>/python-venv`), or `CONTACT_SOLVERS_PYTHON`. Without either the tests print
//! `skipped: …` (CI always has the venv); with one, a missing module or a failing test fails.

use crate::c_support;
use support::tamsi_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use c_support::{lib_dir, skipped};
use tamsi_support::example_output::check_rolling_cylinder;

/// The venv's interpreter: `CONTACT_SOLVERS_PYTHON`, else `python-venv/bin/python` in the target
/// folder this test binary runs from (`<target>/<profile>/deps/<test>`), else in `./target`.
pub(crate) fn python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CONTACT_SOLVERS_PYTHON") {
        return Some(PathBuf::from(p));
    }
    let exe = std::env::current_exe().unwrap();
    let mut candidates: Vec<PathBuf> =
        exe.ancestors().skip(1).take(4).map(|d| d.join("python-venv/bin/python")).collect();
    candidates.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("target/python-venv/bin/python"));
    candidates.into_iter().find(|p| p.exists())
}

fn python_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples_c/python")
}

/// The shared library of this build.
pub(crate) fn library() -> PathBuf {
    lib_dir().join("shared/libcontact_solvers.so")
}

fn run_python(python: &Path, args: &[&str]) -> Output {
    Command::new(python)
        .args(args)
        .current_dir(python_dir())
        .env("CONTACT_SOLVERS_LIB", library())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python runs")
}

pub(crate) fn text(out: &Output) -> (String, String) {
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn pytest_suite_passes() {
    let Some(python) = python() else {
        return skipped(
            "no Python venv with numpy and pytest (.ci/install-deps tests creates target/python-venv)",
        );
    };
    let out = run_python(&python, &["-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfEs", "tests"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "pytest failed ({:?}):\n{stdout}\n{stderr}", out.status);
    // The summary line, e.g. "61 passed in 0.84s": everything passed, nothing was skipped.
    let summary = stdout.lines().rev().find(|l| l.contains(" passed")).unwrap_or_default();
    let passed: usize = summary.split_whitespace().next().and_then(|n| n.parse().ok()).unwrap_or(0);
    assert!(
        !summary.contains("skipped") && !summary.contains("failed") && !summary.contains("error"),
        "pytest: {summary}\n{stdout}"
    );
    assert!(passed >= 60, "too few Python tests ran: {summary}\n{stdout}");
    println!("pytest: {summary}");
}

#[test]
fn rolling_cylinder_example_prints_drakes_values() {
    let Some(python) = python() else {
        return skipped("no Python venv with numpy (.ci/install-deps tests creates target/python-venv)");
    };
    let lib = library();
    let out = run_python(&python, &["rolling_cylinder.py", lib.to_str().unwrap()]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "rolling_cylinder.py failed ({:?}):\n{stdout}\n{stderr}", out.status);
    check_rolling_cylinder(&stdout);
}

#[test]
fn mujoco_pile_example_steps_a_pile_with_block_tamsi() {
    let Some(python) = python() else {
        return skipped(
            "no Python venv with numpy and mujoco (.ci/install-deps tests creates target/python-venv)",
        );
    };
    let out = run_python(&python, &["mujoco_pile.py", "--boxes", "12", "--steps", "40"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "mujoco_pile.py failed ({:?}):\n{stdout}\n{stderr}", out.status);
    // One line per step, each solve converged, and the closing medians.
    let steps: Vec<&str> =
        stdout.lines().filter(|l| l.split_whitespace().nth(2).is_some_and(|w| w.starts_with('k'))).collect();
    assert_eq!(steps.len(), 40, "{stdout}");
    assert!(steps.iter().all(|l| l.contains(" kSuccess ")), "{stdout}");
    assert!(stdout.contains("median per step: block-sparse TAMSI"), "{stdout}");
}

/// The worked example of `docs/tamsi_sensitivities.md` §7 run as a program: gradient descent
/// through TAMSI's vector–Jacobian products recovers the box's μ = 0.35 to 1e-3 relative.
#[test]
fn friction_estimation_example_recovers_mu() {
    let Some(python) = python() else {
        return skipped("no Python venv with numpy (.ci/install-deps tests creates target/python-venv)");
    };
    let out = run_python(&python, &["estimate_friction.py"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "estimate_friction.py failed ({:?}):\n{stdout}\n{stderr}", out.status);
    let last = stdout.lines().last().unwrap_or_default();
    let mu: f64 = last
        .strip_prefix("estimated mu = ")
        .and_then(|r| r.split(',').next())
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("no estimate in:\n{stdout}"));
    assert!((mu - 0.35).abs() <= 1e-3 * 0.35, "estimated mu = {mu}\n{stdout}");
}
