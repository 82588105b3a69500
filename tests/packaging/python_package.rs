//! The Python package `contact_solvers` (`python/contact_solvers/`, `pyproject.toml`):
//!
//! * its declarations (`_ffi.py`) and the Julia module's (`julia/ContactSolvers/src/ffi.jl`) are
//!   those `tools/gen_bindings.py` generates from the committed header, as `header.rs` checks the
//!   header against cbindgen;
//! * its pytest suite (`python/tests/`: struct sizes and offsets, status codes and constants
//!   against the C compiler's, one case of each solver, usage errors) passes against the source
//!   tree and the library this test run built;
//! * `pip install` of the repository into a fresh venv gives a package that works from a temporary folder outside the repository,
//!   with the library inside it (the same suite, run there against the installed package);
//! * that package holds the compiled extension `contact_solvers._pack` (the block setters' lists
//!   packed in C, `docs/python.md` §7), and the suite passes with it and again with it disabled
//!   (`CONTACT_SOLVERS_NO_EXTENSION=1`: the pure-Python path). From the source tree, which holds
//!   no extension, `python/tests/test_pack.py` compiles it and runs both paths itself.
//!
//! The interpreter is the test venv's (`python_ctypes::python`); without one the tests print
//! `skipped: …` (CI always has it).

use crate::c_support::skipped;
use crate::python_ctypes::{library, python, text};

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn generated_bindings_are_fresh() {
    let python = python().unwrap_or_else(|| PathBuf::from("python3"));
    let out = Command::new(&python)
        .arg(repo().join("tools/gen_bindings.py"))
        .arg("--check")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python runs");
    let (stdout, stderr) = text(&out);
    assert!(
        out.status.success(),
        "the generated bindings are stale: run `python3 tools/gen_bindings.py` and commit the \
         result\n{stdout}\n{stderr}"
    );
}

#[test]
fn pyproject_version_is_the_crate_version() {
    let pyproject = std::fs::read_to_string(repo().join("pyproject.toml")).unwrap();
    let line = format!("version = \"{}\"", env!("CARGO_PKG_VERSION"));
    assert!(pyproject.lines().any(|l| l == line), "pyproject.toml lacks `{line}`");
}

/// Runs `python -m pytest python/tests` with `python` from `cwd`; returns the summary line.
fn pytest(python: &Path, cwd: &Path, envs: &[(&str, &Path)], installed: bool) -> String {
    let mut cmd = Command::new(python);
    cmd.args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfEs"])
        .arg(repo().join("python/tests"))
        .current_dir(cwd)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("CONTACT_SOLVERS_HEADER", repo().join("include/contact_solvers.h"))
        .env_remove("CONTACT_SOLVERS_LIB");
    if installed {
        cmd.env("CONTACT_SOLVERS_EXPECT_INSTALLED", "1");
    }
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("pytest runs");
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "pytest failed ({:?}):\n{stdout}\n{stderr}", out.status);
    let summary = stdout.lines().rev().find(|l| l.contains(" passed")).unwrap_or_default().to_string();
    assert!(
        !summary.contains("skipped") && !summary.contains("failed") && !summary.contains("error"),
        "pytest: {summary}\n{stdout}"
    );
    let passed: usize = summary.split_whitespace().next().and_then(|n| n.parse().ok()).unwrap_or(0);
    assert!(passed >= 29, "too few Python tests ran: {summary}\n{stdout}");
    summary
}

#[test]
fn package_tests_pass_against_the_source_tree() {
    let Some(python) = python() else {
        return skipped(
            "no Python venv with numpy and pytest (.ci/install-deps tests creates target/python-venv)",
        );
    };
    let summary = pytest(&python, &repo().join("python"), &[("CONTACT_SOLVERS_LIB", &library())], false);
    println!("pytest (source tree): {summary}");
}

fn run(cmd: &mut Command, what: &str) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{what} failed ({:?}):\n{stdout}\n{stderr}", out.status);
}

/// `pip install <repo>` into a fresh venv (numpy, pytest and the build backend from PyPI, pinned
/// as in `.ci/install-deps`; the build itself with `--no-build-isolation`), then the package's
/// suite from the system's temporary folder. The release build of the library goes to the target folder of the install
/// test (`target/tmp/cinstall-target`, same triple), so the dependencies cargo-c built in release
/// are reused.
#[test]
fn pip_installed_package_works_outside_the_repository() {
    let Some(test_python) = python() else {
        return skipped("no Python venv (.ci/install-deps tests creates target/python-venv)");
    };
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let venv = tmp.join(format!("pip-venv-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&venv);
    // The base interpreter of the test venv: a venv made from it is a fresh one.
    let base = Command::new(&test_python)
        .args(["-c", "import sys; print(sys._base_executable)"])
        .output()
        .expect("python runs");
    let base = PathBuf::from(String::from_utf8_lossy(&base.stdout).trim());
    run(Command::new(&base).args(["-m", "venv"]).arg(&venv), "python -m venv");
    let py = venv.join("bin/python");
    let pip = |args: &[&str]| {
        let mut c = Command::new(&py);
        c.args(["-m", "pip", "install", "-q", "--disable-pip-version-check"]).args(args);
        c
    };
    let t = Instant::now();
    run(
        &mut pip(&["numpy==2.4.6", "pytest==9.2.0", "setuptools==84.2.1"]),
        "pip install numpy pytest setuptools",
    );
    let deps = t.elapsed();
    let t = Instant::now();
    run(
        pip(&["--no-build-isolation", repo().to_str().unwrap()])
            .current_dir(tmp)
            .env("CARGO_TARGET_DIR", tmp.join("cinstall-target"))
            .env("CARGO_BUILD_TARGET", env!("CONTACT_SOLVERS_TARGET")),
        "pip install <repo>",
    );
    let install = t.elapsed();
    let summary = pytest(&py, &std::env::temp_dir(), &[], true);
    // The same suite without the extension (test_pack.py checks that it is then not loaded).
    let without =
        pytest(&py, &std::env::temp_dir(), &[("CONTACT_SOLVERS_NO_EXTENSION", Path::new("1"))], true);
    println!(
        "venv dependencies {deps:.1?}, pip install <repo> {install:.1?}; pytest (installed): \
         {summary}; without the extension: {without}"
    );
    let _ = std::fs::remove_dir_all(&venv);
}
